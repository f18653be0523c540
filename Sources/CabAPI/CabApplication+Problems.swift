import CabHTTP

extension CabApplication {
    /// `GET /problems` (the catalogue) and `GET /problems/{code}` (one entry): what a problem document's `type`
    /// URI (`/problems/{code}`) points at.
    func registerProblemEndpoints(on router: inout Router) {
        router.get("/problems") { _ in
            var json = JSONText(capacity: 16_384)
            json.raw("{\"problems\":[")
            for (i, problem) in ProblemCatalogue.all.enumerated() {
                if i > 0 { json.raw(",") }
                Self.write(problem, to: &json)
            }
            json.raw("]}")
            return .bytes(json.bytes, contentType: "application/json")
        }
        router.get("/problems/{code}") { request in
            let code = request.pathParameters["code"] ?? ""
            guard let problem = ProblemCatalogue.byCode[code] else {
                throw ProblemType.notFound.error("No problem type '\(code.prefix(60))'; GET /problems lists them all.")
            }
            var json = JSONText(capacity: 512)
            Self.write(problem, to: &json)
            return .bytes(json.bytes, contentType: "application/json")
        }
    }

    /// `{"code", "type", "status", "title", "summary"}`.
    static func write(_ problem: ProblemType, to json: inout JSONText) {
        json.raw("{")
        json.key("code", first: true)
        json.string(problem.code)
        json.key("type")
        json.string(problem.uri)
        json.key("status")
        json.raw(String(problem.status))
        json.key("title")
        json.string(problem.title)
        json.key("summary")
        json.string(problem.summary)
        json.raw("}")
    }
}
