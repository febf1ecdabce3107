import FoundationEssentials
import PackStore

/// What a command prints on stdout goes through `Redaction` first, as stderr does
/// (`StandardError`): a pack's style URL, a patch's URL or an error line may carry a secret, and
/// output is pasted into tickets and logs. This `print` shadows the standard library's in this
/// module, so no command's line can skip it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(Redaction.text(items.map { "\($0)" }.joined(separator: separator)), terminator: terminator)
}

enum SecretArguments {
    /// The options whose values are secrets, as `--name VALUE` or `--name=VALUE`.
    static let options = ["--access-token"]
    /// The environment's credentials (S3's, for `export` and `diff` to `s3://`).
    static let variables = ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"]

    /// Tells `Redaction` every secret this process was given, before anything is printed: the
    /// literal values are hidden wherever they appear (a URL the rewrite built, a message).
    static func hideAll(arguments: [String], environment: [String: String]) {
        for (index, argument) in arguments.enumerated() {
            for option in options {
                if argument == option, index + 1 < arguments.count { Redaction.hide(literal: arguments[index + 1]) }
                if argument.hasPrefix(option + "=") { Redaction.hide(literal: String(argument.dropFirst(option.count + 1))) }
            }
        }
        for variable in variables { environment[variable].map(Redaction.hide(literal:)) }
    }
}
