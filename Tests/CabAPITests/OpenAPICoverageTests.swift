import CabTestSupport
import Foundation
import Testing

@testable import CabAPI
@testable import CabHTTP

/// `Public/openapi.json` (served at `GET /openapi.json`) documents every endpoint `makeRouter()` registers.
@Suite struct OpenAPICoverageTests {
    /// The web app's pages and static files: routes that are not API endpoints.
    static let webAppPages: Set<String> = ["/", "/driver", "/dispatch", "/t/{token}"]

    static func document() throws -> [String: Any] {
        let url = TestData.repositoryRoot.appendingPathComponent("Public/openapi.json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    static func registeredRoutes() -> [Router.Route] {
        let app = CabApplication(
            configuration: APIConfiguration(
                publicDirectory: TestData.repositoryRoot.appendingPathComponent("Public").path),
            services: Services(), metrics: MetricsRegistry())
        return app.makeRouter().routes
    }

    @Test func everyRegisteredRouteIsDocumented() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: Any]])
        let api = Self.registeredRoutes().filter {
            !$0.pattern.hasSuffix("*}") && !Self.webAppPages.contains($0.pattern)
        }
        #expect(api.count > 30)
        for route in api {
            let operations = paths[route.pattern]
            #expect(
                operations != nil, "\(route.pattern) is registered in makeRouter() but missing from Public/openapi.json"
            )
            #expect(
                operations?[route.method.lowercased()] != nil,
                "\(route.method) \(route.pattern) is registered but Public/openapi.json documents only \(operations?.keys.sorted() ?? [])"
            )
        }
    }

    @Test func everyDocumentedOperationIsServed() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: Any]])
        let registered = Set(Self.registeredRoutes().map { "\($0.method) \($0.pattern)" })
        for (path, operations) in paths {
            for method in operations.keys {
                #expect(
                    registered.contains("\(method.uppercased()) \(path)"),
                    "openapi.json documents \(method) \(path), which no route serves")
            }
        }
    }

    @Test func isAnOpenAPI31DocumentWhoseReferencesResolve() throws {
        let document = try Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let text = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
        let prefix = "#/components/schemas/"
        var unresolved: [String] = []
        for part in text.components(separatedBy: prefix).dropFirst() {
            let name = String(part.prefix { $0 != "\"" })
            if schemas[name] == nil { unresolved.append(name) }
        }
        #expect(unresolved.isEmpty, "unresolved $refs: \(unresolved)")
    }
}
