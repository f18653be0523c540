/// Something the load tools could not do (start the server, run wrk, reach an endpoint), with what to fix.
struct BenchError: Error, CustomStringConvertible {
    /// A one-line message saying what failed and what to do.
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}
