import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`: the one process runner of the load tools
/// (`cab serve`, `wrk`, `redis-server`) and the tests (`cab serve`, PostgreSQL, Redis). No shell: arguments are
/// passed as they are. Standard input is /dev/null.
///
/// Not Foundation's `Process`: its exit monitor missed `runuser`'s exit here (a zombie never reaped,
/// `waitUntilExit` waiting forever). The child starts with no signal blocked and default handlers: the test
/// runner's threads block signals (libdispatch's workers do), a child inherits the mask, and a server started from
/// one would ignore SIGTERM.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `pid` and `stdoutFD` are set in init and never change; `exitStatus` is behind a Mutex;
    // reading `stdoutFD` is left to one caller at a time.

    /// Where the child's standard output goes.
    public enum Output: Sendable {
        /// A pipe this object reads (`readLine`, `readAll`).
        case pipe
        /// Appended to a file. A server left running (`pg_ctl start`) would hold a pipe's write end, keeping a
        /// reader waiting for its end forever; a file has no such end.
        case file(String)
    }

    /// The child's process id.
    public let pid: pid_t
    /// The read end of the child's standard output, -1 when it goes to a file.
    public let stdoutFD: Int32
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments` (not including argv[0]) and this process's environment with
    /// `environment` added. Standard error goes to `stderrPath`, or to wherever standard output goes when it is nil.
    public init(
        executable: String, arguments: [String], standardOutput: Output = .pipe, stderrPath: String? = "/dev/null",
        environment: [String: String] = [:]
    ) throws(LoopbackError) {
        var fds: [Int32] = [-1, -1]
        if case .pipe = standardOutput {
            guard pipe(&fds) == 0 else { throw LoopbackError("cannot create a pipe: \(errnoText())") }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch standardOutput {
        case .pipe:
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        }
        if let stderrPath {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
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
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        var rc: Int32
        if environment.isEmpty {
            rc = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        } else {
            let merged = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
            let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for p in envp { free(p) } }
            rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        }
        if fds[1] >= 0 { close(fds[1]) }
        guard rc == 0 else {
            if fds[0] >= 0 { close(fds[0]) }
            throw LoopbackError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = fds[0]
    }

    deinit {
        if exitStatus.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
        if stdoutFD >= 0 { close(stdoutFD) }
    }

    /// Reads standard output up to the first newline, waiting at most `timeoutSeconds`; nil if the child closed
    /// its output or the time ran out.
    public func readLine(timeoutSeconds: Double) -> String? {
        guard stdoutFD >= 0 else { return nil }
        var bytes: [UInt8] = []
        let deadline = monotonicSeconds() + timeoutSeconds
        var byte: UInt8 = 0
        while true {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { return nil }
            var pfd = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(left * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = read(stdoutFD, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// Reads all of standard output until the child closes it (bounded to `limit` bytes, the rest discarded).
    public func readAll(limit: Int = 1 << 20) -> String {
        guard stdoutFD >= 0 else { return "" }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            if out.count < limit { out += buffer[0..<min(n, limit - out.count)] }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Sends `signal` to the child (nothing once it has been reaped).
    public func send(_ signal: Int32) {
        if exitStatus.withLock({ $0 }) == nil { kill(pid, signal) }
    }

    /// Waits for the child to end and returns its exit status (128 + signal when killed by one).
    @discardableResult
    public func waitForExit() -> Int32 {
        if let status = exitStatus.withLock({ $0 }) { return status }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return record(status)
    }

    /// Waits up to `timeoutSeconds` for the child to end; nil if it is still running.
    public func waitForExit(timeoutSeconds: Double) -> Int32? {
        let deadline = monotonicSeconds() + timeoutSeconds
        while monotonicSeconds() < deadline {
            if let status = exitStatus.withLock({ $0 }) { return status }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return record(status) }
            usleep(20_000)
        }
        return nil
    }

    /// Sends `signal` (SIGTERM by default), waits `graceSeconds` for the exit, then SIGKILL; returns the status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, graceSeconds: Double = 15) -> Int32 {
        send(signal)
        if let status = waitForExit(timeoutSeconds: graceSeconds) { return status }
        send(SIGKILL)
        return waitForExit()
    }

    private func record(_ status: Int32) -> Int32 {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros; decode the classic layout by hand.
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus.withLock { $0 = code }
        return code
    }
}
