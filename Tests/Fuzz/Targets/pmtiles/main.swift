// The pmtiles fuzz target (scripts/fuzz.sh builds it with -sanitize=fuzzer,address).
import CLibFuzzer
import FuzzBodies
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzBodies.fuzz(.pmtiles, data, size)
    return 0
}

// SwiftPM gives an executable its own entry point (renamed, so tests can link the module), and
// that hides libFuzzer's main: this one hands the command line to libFuzzer's driver.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzz))
