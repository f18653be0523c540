import CabCore
import CabHTTP
import CabOSM
import CabTracking
import Foundation

@testable import CabAPI
@testable import CabHTTP

/// The fuzz targets: each takes one input and must neither trap nor leak (AddressSanitizer) whatever it is.
/// An error thrown is a normal outcome; a crash is a finding. `make fuzz` runs each under libFuzzer; `make test`
/// replays the checked-in corpus (`Fuzz/corpus/TARGET`) through each without libFuzzer.
enum FuzzTargets {
    static let names = ["pbf", "json", "osmand", "tariff", "http"]

    static func run(_ target: String, _ bytes: [UInt8]) {
        switch target {
        case "pbf": pbf(bytes)
        case "json": json(bytes)
        case "osmand": osmand(bytes)
        case "tariff": tariff(bytes)
        case "http": http(bytes)
        default: fatalError("unknown fuzz target '\(target)'; known: \(names.joined(separator: ", "))")
        }
    }

    /// Counts what the decoder delivers.
    struct Counter: OSMElementHandler {
        var elements = 0
        mutating func handle(_ node: OSMNode) { elements += 1 }
        mutating func handle(_ way: OSMWay) { elements += way.nodeIDs.count }
        mutating func handle(_ relation: OSMRelation) { elements += relation.members.count }
    }

    /// The PBF decoder (reads from a file, so the input is written to one in /dev/shm first).
    static let pbfPath = "/dev/shm/cab-fuzz-\(getpid()).osm.pbf"
    static func pbf(_ bytes: [UInt8]) {
        guard FileManager.default.createFile(atPath: pbfPath, contents: Data(bytes)) else { return }
        guard let reader = try? PBFReader(path: pbfPath) else { return }
        var counter = Counter()
        _ = try? reader.read(into: &counter)
    }

    /// The JSON body reader and the hand-read bodies of the busiest endpoints.
    static func json(_ bytes: [UInt8]) {
        var request = HTTPRequest(method: "POST", path: "/v1/driver/locations", requestID: "fuzz")
        request.body = bytes
        if let batch = try? request.decodeJSONBody(LocationBatchBody.self) { _ = batch.fixes.map(\.fix) }
        _ = try? request.decodeJSONBody(BookingRequestBodies.NewBooking.self)
        if let value = try? JSONValue(parsing: bytes) { _ = value["fixes"] }
    }

    /// The OsmAnd query and form parser: the input is the query string (and, split at the first NUL, a body).
    static func osmand(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let query = OsmAndRequest.formParameters(Array(bytes[..<split]))
        var request = HTTPRequest(method: "POST", path: "/osmand", query: query, requestID: "fuzz")
        request.body = split < bytes.endIndex ? Array(bytes[(split + 1)...]) : []
        if let report = try? OsmAndRequest(request, now: Instant(millisecondsSinceEpoch: 1_780_000_000_000)),
            let fix = report.fix
        {
            var index = NearestDriverIndex<Int>()
            if fix.coordinate.isValid {
                index.update(
                    1, coordinate: fix.coordinate, timeMilliseconds: fix.timeMilliseconds,
                    headingDegrees: fix.headingDegrees, speedMetersPerSecond: fix.speedMetersPerSecond)
            }
        }
    }

    /// The tariff reader and its error messages.
    static func tariff(_ bytes: [UInt8]) {
        let data = Data(bytes)
        do {
            let tariff = try JSONDecoder().decode(Tariff.self, from: data)
            _ = tariff.warning()
            _ = tariff.fare(distanceMeters: 12_345, durationSeconds: 678)
        } catch {
            _ = Tariff.explain(error, document: (try? JSONSerialization.jsonObject(with: data)) as? [String: Any])
        }
    }

    /// The HTTP request path: a request line, headers and a body as a client sends them, through the router and
    /// the handlers of an application with no data loaded (every endpoint's parameter checks run).
    static let application = CabApplication(
        configuration: APIConfiguration(publicDirectory: nil), services: Services(), metrics: MetricsRegistry())
    static let router = application.makeRouter()
    static let mapper = application.errorMapper(log: nil)

    static func http(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let head = text.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)
        let lines = head.first.map { $0.split(separator: "\r\n", omittingEmptySubsequences: false) } ?? []
        guard let requestLine = lines.first else { return }
        let parts = requestLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2 else { return }
        let target = String(parts[1])
        let pathAndQuery = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = (String(pathAndQuery[0]).removingPercentEncoding ?? String(pathAndQuery[0]))
        var request = HTTPRequest(
            method: String(parts[0]), path: path,
            query: pathAndQuery.count > 1 ? OsmAndRequest.formParameters(Array(pathAndQuery[1].utf8)) : [:],
            requestID: "fuzz")
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            request.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        request.body = head.count > 1 ? Array(head[1].utf8) : []
        _ = HTTPServer.loggedPath(path, route: "unmatched")
        guard case .found(let route, let parameters) = router.match(method: request.method, path: request.path) else {
            return
        }
        request.pathParameters = parameters
        do {
            _ = try route.handler(request)
        } catch {
            _ = mapper(error, request)
        }
    }
}
