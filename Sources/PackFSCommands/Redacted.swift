import Basics
import FoundationEssentials
import PackStore

/// Stdout goes through `Redaction` as stderr does: a URL or error line may carry a secret, and output is
/// pasted into tickets. This `print` shadows the standard library's so that no line skips it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(Redaction.text(items.map { "\($0)" }.joined(separator: separator)), terminator: terminator)
}

enum SecretArguments {
    /// The options whose values are secrets, as `--name VALUE` or `--name=VALUE`.
    static let options = ["--access-token"]
    /// The environment's credentials (S3's, for `export` and `diff` to `s3://`), and the access
    /// token a background mount hands its daemon.
    static let variables = ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", tokenVariable]

    /// How `packfs mount` hands `--access-token` to its daemon: the environment only its owner reads,
    /// not the command line every user reads (`ps`).
    static let tokenVariable = "PACKFS_INHERITED_ACCESS_TOKEN"

    static var inheritedAccessToken: String? { ProcessInfo.processInfo.environment[tokenVariable] }

    /// `arguments` without the secret options, and the environment variables that carry them.
    static func moved(_ arguments: [String]) -> (arguments: [String], environment: [String: String]) {
        var kept: [String] = []
        var token: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--access-token", !rest.isEmpty {
                token = rest.removeFirst()
            } else if argument.hasPrefix("--access-token=") {
                token = String(argument.dropFirst("--access-token=".count))
            } else {
                kept.append(argument)
            }
        }
        return (kept, token.map { [tokenVariable: $0] } ?? [:])
    }

    /// Tells `Redaction` every secret given, before anything is printed, so each is hidden wherever it appears.
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
