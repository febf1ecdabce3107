import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// An error in a few words for a one-line message. FoundationEssentials' file errors carry no text:
/// their cause is told as strerror(3) tells it ("No such file or directory"), with the path if named.
public func errorText(_ error: any Error) -> String {
    switch error {
    case let error as SystemError: return error.description
    case let error as POSIXError: return String(cString: strerror(error.code.rawValue))
    case let error as CocoaError:
        let cause = error.underlying.map(errorText) ?? "file error \(error.code.rawValue)"
        return error.filePath.map { "\($0): \(cause)" } ?? cause
    default: return String(describing: error)
    }
}
