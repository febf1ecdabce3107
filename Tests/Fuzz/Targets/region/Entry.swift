// libFuzzer's entry for the region target (scripts/fuzz.sh builds it with -sanitize=fuzzer,address).
import FuzzBodies

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzBodies.fuzz(.region, data, size)
    return 0
}
