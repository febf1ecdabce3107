// What every libFuzzer target's main shares: the entry libFuzzer calls and the hand-off to its driver.
// A main is one line, `FuzzDriver.run(.name)`: scripts/fuzz.sh builds one executable per FuzzBodies.Target.
import CLibFuzzer
import Foundation
import FuzzBodies

public enum FuzzDriver {
    /// The target this process fuzzes, set once by `run` before libFuzzer calls the entry; libFuzzer
    /// calls it from one thread only.
    nonisolated(unsafe) static var target: FuzzBodies.Target = .region

    /// Hands the command line to libFuzzer's driver, which calls `target`'s body with each input.
    public static func run(_ target: FuzzBodies.Target) -> Never {
        Self.target = target
        // SwiftPM gives an executable its own entry point (renamed, so tests can link the module),
        // and that hides libFuzzer's main: the driver is started here instead.
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
    }
}

/// The entry libFuzzer's runtime links against (its own main names it); the driver calls it too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzBodies.fuzz(FuzzDriver.target, data, size)
    return 0
}
