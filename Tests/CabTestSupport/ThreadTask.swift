import Foundation
import Synchronization

/// Blocking work on its own thread, for tests that block on sockets or semaphores: Swift's cooperative pool has
/// one thread per core, and a test that blocks those threads starves itself.
public final class ThreadTask<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<Value, any Error>?>(nil)

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Blocks until the body has finished; returns its value or rethrows its error.
    public func value() throws -> Value {
        done.wait()
        done.signal()  // later calls return at once
        // The result is set before `done` is signalled.
        return try result.withLock { $0! }.get()
    }

    /// Runs `count` bodies on `count` threads at once and returns their values in order.
    public static func all(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Value) throws -> [Value] {
        let tasks = (0..<count).map { index in ThreadTask { try body(index) } }
        return try tasks.map { try $0.value() }
    }
}
