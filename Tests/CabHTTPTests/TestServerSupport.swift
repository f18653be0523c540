import CabHTTP
import CabTestSupport
import Foundation
import Synchronization

/// A live server on 127.0.0.1 and a free port, with its access and error log lines captured.
final class TestServer: Sendable {
    let server: HTTPServer
    let port: Int
    let metrics: MetricsRegistry
    private let lines = LineCollector()
    private let errors = LineCollector()

    init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(port: 0),
        errorMapper: HTTPErrorMapper? = nil, routes: (inout Router) -> Void
    ) throws {
        var router = Router()
        routes(&router)
        let metrics = MetricsRegistry()
        router.addHealthAndMetrics(metrics)
        self.metrics = metrics
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let lines = self.lines
        let errors = self.errors
        server = HTTPServer(
            configuration: configuration, router: router, metrics: metrics,
            accessLog: { lines.append($0) },
            errorLog: { errors.append($0) }, errorMapper: errorMapper)
        port = try server.start()
    }

    deinit { server.shutdown() }

    /// The access log lines so far.
    var accessLog: [String] { lines.lines }
    /// The error log lines so far.
    var errorLog: [String] { errors.lines }

    /// One request on a fresh connection.
    func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPTestResponse {
        try request("GET", path, headers: headers)
    }

    /// One request on a fresh connection.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = [])
        throws -> HTTPTestResponse
    {
        let connection = try HTTPTestConnection(port: port)
        try connection.sendRequest(method, path, headers: headers, body: body)
        return try connection.readResponse(method: method)
    }

    /// Waits (polling, up to `seconds`) until `condition` holds; returns whether it did.
    func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        CabTestSupport.eventually(within: seconds, condition)
    }
}

/// Lines written from server threads.
final class LineCollector: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
