/// What went wrong talking to object storage; each case names what failed, so its `description` is enough to act on.
public enum ObjectStorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An `s3://` URL that names no object (`why`: no bucket, no key, a bad bucket name).
    case badURL(String, String)
    /// Settings missing or unusable (`what`: "no credentials: set AWS_ACCESS_KEY_ID and ...").
    case configuration(String)
    /// The file to upload could not be opened or read.
    case cannotRead(String, reason: String)
    /// A request failed for good, after its retries: `step` names it ("part 3 of 5"), `reason` says why.
    case requestFailed(step: String, reason: String, attempts: Int)
    /// An upload that failed; `cause` is why, `aborted` whether the multipart upload was aborted
    /// (nil: it was never started), `abortFailure` why not when the abort failed too.
    indirect case uploadFailed(ObjectLocation, cause: ObjectStorageError, aborted: Bool?, uploadID: String?, abortFailure: String?)

    public var description: String {
        switch self {
        case .badURL(let url, let why): return "\(url): not an s3://bucket/key URL: \(why)"
        case .configuration(let what): return what
        case .cannotRead(let path, let reason): return "cannot read \(path): \(reason)"
        case .requestFailed(let step, let reason, let attempts):
            return "\(step): \(reason)" + (attempts > 1 ? " (after \(attempts) attempts)" : "")
        case .uploadFailed(let object, let cause, let aborted, let uploadID, let abortFailure):
            var line = "upload of \(object) failed: \(cause)"
            switch aborted {
            case true?: line += "; the multipart upload was aborted, no object was written"
            case false?:
                line += "; the multipart upload could not be aborted (\(abortFailure ?? "unknown")): its parts stay stored "
                    + "until it is aborted (upload ID \(uploadID ?? "?")) or a lifecycle rule removes it"
            case nil: line += "; nothing was written"
            }
            return line
        }
    }
}
