import CabClient
import Dispatch
import Synchronization

/// Runs async client work from a command's synchronous `run` and waits for it (the commands end with `exit`).
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws(ClientError) -> T) -> Result<T, ClientError> {
    let finished = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<T, ClientError>?>(nil)
    Task {
        let result: Result<T, ClientError>
        do throws(ClientError) {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        finished.signal()
    }
    finished.wait()
    // The task signals only after storing its result.
    return outcome.withLock { $0 }!
}
