#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its standard output on a pipe, standard error to a file.
///
/// The load tools run `cab serve` and `wrk` this way: no shell, arguments passed as they are.
final class ChildProcess {
    /// The child's process id.
    let pid: pid_t
    /// The read end of the child's standard output.
    let stdoutFD: Int32
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments` (not including argv[0]); standard error goes to `stderrPath`.
    init(executable: String, arguments: [String], stderrPath: String = "/dev/null") throws(BenchError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw BenchError("cannot create a pipe: \(errnoText())") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, argv, environ)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            throw BenchError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = fds[0]
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
        close(stdoutFD)
    }

    /// Reads standard output up to the first newline, waiting at most `timeoutSeconds`; nil if the child closed
    /// its output or the time ran out.
    func readLine(timeoutSeconds: Double) -> String? {
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
    func readAll(limit: Int = 1 << 20) -> String {
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

    /// Sends `signal` to the child.
    func send(_ signal: Int32) {
        if exitStatus == nil { kill(pid, signal) }
    }

    /// Waits for the child to end and returns its exit status (128 + signal when killed by one).
    @discardableResult
    func waitForExit() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros; decode the classic layout by hand.
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    /// Waits up to `timeoutSeconds` for the child to end; nil if it is still running.
    func waitForExit(timeoutSeconds: Double) -> Int32? {
        let deadline = monotonicSeconds() + timeoutSeconds
        while monotonicSeconds() < deadline {
            if let exitStatus { return exitStatus }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                return exitStatus
            }
            usleep(20_000)
        }
        return nil
    }
}

/// `strerror(errno)` as a string.
func errnoText() -> String { String(cString: strerror(errno)) }
