// libFuzzer's entry for the regiontext target (scripts/fuzz.sh builds it with -sanitize=fuzzer,address).
import FuzzBodies

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzBodies.fuzz(.regiontext, data, size)
    return 0
}
