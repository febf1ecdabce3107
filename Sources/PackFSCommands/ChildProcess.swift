import Basics
import CGlibc
import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with posix_spawn in a session of its own: default exit signals, none blocked, and
/// only the standard three descriptors (the background daemon, fusermount3), without full Foundation.
struct ChildProcess {
    let pid: pid_t

    /// Starts `path` (`arguments` follow argv[0]); nil standard descriptors are /dev/null.
    static func start(_ path: String, _ arguments: [String], environment: [String: String],
                      input: Int32? = nil, output: Int32? = nil, error: Int32? = nil) throws(SystemError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in [(STDIN_FILENO, input), (STDOUT_FILENO, output), (STDERR_FILENO, error)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Only the three: what the parent inherited without close-on-exec (a socket its own
        // parent watches for its end) must not live on in a daemon.
        packfs_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, packfs_spawn_setsid() | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, path, &actions, &attributes, argv + [nil], envp + [nil])
        guard code == 0 else { throw SystemError(code: code) }
        return ChildProcess(pid: pid)
    }

    /// Waits for the child's end: its exit status, or 128 plus the signal that ended it.
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return 127 }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
