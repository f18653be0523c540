import CabHTTP
import CabTestSupport
import Foundation
import Testing

@Suite struct StaticFilesTests {
    let root: URL
    let server: TestServer

    init() throws {
        root = try TestData.temporaryDirectory("static")
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("js"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try Data("<h1>cab</h1>".utf8).write(to: root.appendingPathComponent("index.html"))
        try Data("export const x = 1;".utf8).write(to: root.appendingPathComponent("js/app.mjs"))
        try Data("body{}".utf8).write(to: root.appendingPathComponent("style.css"))
        try Data("TOP-SECRET-ENV".utf8).write(to: root.appendingPathComponent(".env"))
        try Data(repeating: 1, count: 2048).write(to: root.appendingPathComponent("big.png"))
        // A file outside the root that traversal attempts aim at.
        try Data("TOP-SECRET-OUTSIDE".utf8).write(
            to: root.deletingLastPathComponent().appendingPathComponent("outside.txt"))
        // Symbolic links: one leading out of the root (refused), one staying inside it (served).
        try? fm.removeItem(at: root.appendingPathComponent("leak.txt"))
        try fm.createSymbolicLink(
            atPath: root.appendingPathComponent("leak.txt").path,
            withDestinationPath: root.deletingLastPathComponent().appendingPathComponent("outside.txt").path)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("etc").path, withDestinationPath: "/etc")
        try fm.createSymbolicLink(
            atPath: root.appendingPathComponent("alias.css").path, withDestinationPath: "style.css")
        let files = StaticFiles(root: root.path, maxFileBytes: 1024, cacheControl: "public, max-age=60")
        server = try TestServer { r in
            r.get("/vendor/leaflet/{path*}", handler: StaticFiles(root: "/usr/share/javascript/leaflet").handler())
            r.get("/{path*}", handler: files.handler())
        }
    }

    @Test func servesFilesWithTypesAndCaching() throws {
        let index = try server.get("/")
        #expect(index.status == 200)
        #expect(index.text == "<h1>cab</h1>")
        #expect(index.headers["content-type"] == "text/html; charset=utf-8")
        #expect(index.headers["cache-control"] == "public, max-age=60")
        let module = try server.get("/js/app.mjs")
        #expect(module.headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(try server.get("/style.css").headers["content-type"] == "text/css; charset=utf-8")
        #expect(try server.get("/index.html").text == "<h1>cab</h1>")
    }

    @Test(arguments: [
        "/../outside.txt", "/%2e%2e/outside.txt", "/js/../../outside.txt", "/js/%2E%2E/%2E%2E/outside.txt",
        "/..%2foutside.txt", "/.env", "/empty", "/big.png", "/missing.js",
        "/leak.txt", "/etc/hostname", "/etc/passwd", "/js/app.mjs%00", "/style.css%00.png", "/%00", "/style.css%2500",
    ])
    func refusesTraversalHiddenMissingAndOversized(path: String) throws {
        let response = try server.get(path)
        #expect(response.status == 404, "\(path)")
        #expect(!response.text.contains("TOP-SECRET"))
    }

    @Test func aLinkInsideTheRootIsServed() throws {
        let response = try server.get("/alias.css")
        #expect(response.status == 200 && response.text == "body{}")
    }

    @Test func aNulInThePathIsA404ProblemNotTheFileBeforeIt() throws {
        let response = try server.get("/js/app.mjs%00")
        #expect(response.status == 404 && response.headers["content-type"] == "application/problem+json")
        #expect(!response.text.contains("export const"))
    }

    @Test func servesDebianLeaflet() throws {
        try #require(FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js"))
        let response = try server.get("/vendor/leaflet/leaflet.js")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(response.text.contains("Leaflet"))
        #expect(try server.get("/vendor/leaflet/leaflet.css").headers["content-type"] == "text/css; charset=utf-8")
    }
}
