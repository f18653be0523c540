import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid`, for servers the tests start (PostgreSQL,
/// Redis). Not Foundation's `Process`: its exit monitor missed `runuser`'s exit here (a zombie never reaped,
/// `waitUntilExit` waiting forever). Output goes to a file, not a pipe: a server left running (`pg_ctl start`)
/// would hold a pipe's write end, keeping a reader waiting for its end forever.
public final class SpawnedProcess: @unchecked Sendable {
    // @unchecked Sendable: `pid` and `outputPath` are set in init and never change; `wait` is called once.
    /// The child's process id.
    public let pid: pid_t
    /// Where its standard output and error go.
    public let outputPath: String

    /// Starts `path arguments...` with standard input from /dev/null and output to `outputPath`.
    public init(_ path: String, _ arguments: [String], outputPath: String) throws {
        self.outputPath = outputPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The test runner's threads block signals (libdispatch's workers do), and a child inherits the mask: a
        // server started from one would ignore SIGTERM. Start it with nothing blocked and default handlers.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw HTTPTestError(description: "cannot start \(path): \(String(cString: strerror(spawned)))")
        }
        pid = child
    }

    /// Waits for the exit; returns the exit code (128 + signal for a signal).
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Sends `signal` (SIGTERM by default) and waits for the exit.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        kill(pid, signal)
        return wait()
    }

    /// What it printed so far.
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Runs a tool to its end and returns its output; throws with that output when it exits non-zero.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "cab-spawn-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let child = try SpawnedProcess(path, arguments, outputPath: outputPath)
        let code = child.wait()
        let text = child.output
        guard code == 0 else {
            throw HTTPTestError(description: "\(path) \(arguments.first ?? "") failed (exit \(code)): \(text.suffix(800))")
        }
        return text
    }
}
