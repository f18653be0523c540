import CabHTTP

extension CabApplication {
    /// The web app's pages, its files, and Debian's Leaflet under `/vendor/leaflet/`.
    func registerWebApp(on router: inout Router) {
        // Static files run inline: small files read from the page cache, bounded by `StaticFiles.maxFileBytes`.
        router.get(
            "/vendor/leaflet/{path*}", execution: .inline,
            handler: StaticFiles(root: configuration.leafletDirectory).handler())
        guard let root = configuration.publicDirectory else { return }
        let files = StaticFiles(root: root, cacheControl: "no-cache")
        let pages = ["/": "index.html", "/driver": "driver.html", "/dispatch": "dispatch.html"]
        for (path, file) in pages {
            router.get(path, execution: .inline) { _ in try files.response(forPath: file) }
        }
        router.get("/t/{token}", execution: .inline) { _ in try files.response(forPath: "track.html") }
        router.get("/openapi.json", execution: .inline) { _ in try files.response(forPath: "openapi.json") }
        // Only the web app's own folders: a catch-all would turn every unknown POST into a 405.
        for folder in ["css", "js", "img"] {
            router.get("/\(folder)/{path*}", execution: .inline) { request in
                try files.response(forPath: folder + "/" + (request.pathParameters["path"] ?? ""))
            }
        }
    }
}
