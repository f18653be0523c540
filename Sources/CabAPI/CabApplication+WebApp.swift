import CabHTTP

extension CabApplication {
    /// The web app's pages, its files, and Debian's Leaflet under `/vendor/leaflet/`.
    func registerWebApp(on router: inout Router) {
        router.get("/vendor/leaflet/{path*}", handler: StaticFiles(root: configuration.leafletDirectory).handler())
        guard let root = configuration.publicDirectory else { return }
        let files = StaticFiles(root: root, cacheControl: "no-cache")
        let pages = ["/": "index.html", "/driver": "driver.html", "/dispatch": "dispatch.html"]
        for (path, file) in pages {
            router.get(path) { _ in try files.response(forPath: file) }
        }
        router.get("/t/{token}") { _ in try files.response(forPath: "track.html") }
        router.get("/openapi.json") { _ in try files.response(forPath: "openapi.json") }
        // Only the web app's own folders: a catch-all would turn every unknown POST into a 405.
        for folder in ["css", "js", "img"] {
            router.get("/\(folder)/{path*}") { request in
                try files.response(forPath: folder + "/" + (request.pathParameters["path"] ?? ""))
            }
        }
    }
}
