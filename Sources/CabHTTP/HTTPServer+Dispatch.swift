import CMicroHTTPD

extension HTTPServer {
    /// The first call for a request: headers are in. Routes it and refuses an announced oversized body at once.
    func begin(_ context: RequestContext, on connection: OpaquePointer) -> Bool {
        inFlight.enter()
        deadlines.enter(.readingBody, connection)
        context.requestID = RequestID.accept(lookup(connection, header: "X-Request-Id")) ?? RequestID.generate()
        context.remoteAddress = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            // A 64-element allocation always has a base address.
            let base = buffer.baseAddress!
            return cab_mhd_client_address(connection, base, buffer.count) == 0 ? String(cString: base) : ""
        }
        context.match = router.match(method: context.method, path: context.path)
        if case .found(let route, _) = context.match { context.routePattern = route.pattern }
        if let refusal = context.refusal {
            return queue(refused(refusal).response(requestID: context.requestID), for: context, on: connection)
        }
        let headerBytes = HeaderSize.total(connection)
        if headerBytes > configuration.maxHeaderBytes {
            let problem = HTTPError(
                .headersTooLarge,
                detail:
                    "The request's headers are \(headerBytes) bytes; at most \(configuration.maxHeaderBytes) are read. "
                    + "Send fewer or shorter headers (cookies included).")
            return queue(problem.response(requestID: context.requestID), for: context, on: connection)
        }
        if context.version == "HTTP/1.1" && lookup(connection, header: "Host") == nil {
            // RFC 9112 §3.2: a request without Host is answered 400 (libmicrohttpd accepts it).
            let problem = HTTPError(.badRequest, detail: "HTTP/1.1 requests must carry a Host header.")
            return queue(problem.response(requestID: context.requestID), for: context, on: connection)
        }
        if let length = lookup(connection, header: "Content-Length").flatMap({ Int($0) }),
            length > configuration.maxBodyBytes
        {
            // Queued before the body is read: libmicrohttpd discards the rest and closes after sending.
            return queue(tooLarge(context), for: context, on: connection)
        }
        return true
    }

    /// A piece of body. Past the limit the bytes are dropped; a body that keeps coming well past the limit
    /// closes the connection (libmicrohttpd cannot queue a response while it is reading a body).
    func receive(_ bytes: UnsafeRawBufferPointer, for context: RequestContext) -> Bool {
        if context.status != nil { return true }
        if context.bodyTooLarge || context.body.count + bytes.count > configuration.maxBodyBytes {
            context.bodyTooLarge = true
            context.discardedBytes += bytes.count
            context.body = []
            return context.discardedBytes <= max(configuration.maxBodyBytes, 64 * 1024)
        }
        context.body.append(contentsOf: bytes)
        return true
    }

    /// The request is complete: run the handler (inline, on the handler pool with the connection parked, or
    /// inline until it throws `ParkRequest` and then on the pool) and queue its response.
    func complete(_ context: RequestContext, on connection: OpaquePointer) -> Bool {
        deadlines.enter(.serving, connection)
        if context.status != nil { return true }
        if let (pending, request) = context.deferred {
            // Resumed: the deferred response is complete, or the server is stopping (a spurious call finds
            // nothing and waits on).
            if let make = pending.take() { return queue(run(make, for: request), for: context, on: connection) }
            if pending.isAbandoned { return queue(stopping(context), for: context, on: connection) }
            return true
        }
        if context.bodyTooLarge { return queue(tooLarge(context), for: context, on: connection) }
        let headers = KeyValueCollector(lowercaseKeys: true, joinRepeated: true)
        let query = KeyValueCollector(lowercaseKeys: false, joinRepeated: false)
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, cabCollectKeyValue, Unmanaged.passUnretained(headers).toOpaque())
        _ = MHD_get_connection_values(
            connection, .GET_ARGUMENT_KIND, cabCollectKeyValue, Unmanaged.passUnretained(query).toOpaque())
        var request = HTTPRequest(
            method: context.method, path: context.path, query: query.values, headers: headers.values,
            body: context.body, requestID: context.requestID)
        context.body = []
        let match = context.match
        var response: HTTPResponse?
        if let pool, case .found(let route, _) = match, route.execution != .inline {
            if route.execution == .inlineUnlessParked {
                // Inline while the handler needs nothing that waits; nil: it asked to be parked.
                request.mayWait = false
                response = respond(to: &request, match: match)
                request.mayWait = true
            }
            if response == nil {
                // The handler may block: it runs on the pool while the connection waits parked on `slot`.
                let slot = DeferredResponse()
                let submitted = request
                let job: HandlerPool.Job = { [self] in
                    var request = submitted
                    // `mayWait` is true here: `respond` maps a `ParkRequest` like any error and never returns nil.
                    let response = respond(to: &request, match: match)!
                    deliver(response, to: slot, request: request)
                }
                guard pool.submit(job) else {
                    if isStopping.load(ordering: .sequentiallyConsistent) {
                        return queue(stopping(context), for: context, on: connection)
                    }
                    busyRefusals.increment()
                    return queue(busy(context, pool: pool), for: context, on: connection)
                }
                pooledRequests.increment(labelValues: [route.pattern])
                request.body = []
                return park(slot, request: request, for: context, on: connection)
            }
        }
        // `mayWait` is true for this call, so `respond` does not return nil (see above).
        let answer = response ?? respond(to: &request, match: match)!
        if case .deferred(let pending) = answer.body {
            request.body = []
            return park(pending, request: request, for: context, on: connection)
        }
        return queue(answer, for: context, on: connection)
    }

    /// Parks the connection on `pending` until it completes; answers at once when it already has.
    private func park(
        _ pending: DeferredResponse, request: HTTPRequest, for context: RequestContext, on connection: OpaquePointer
    ) -> Bool {
        context.deferred = (pending, request)
        parked.withLock { $0[ObjectIdentifier(pending)] = pending }
        // Shutdown snapshots `parked` after setting this flag: a request parked after the snapshot sees it.
        if abandonsParked.load(ordering: .sequentiallyConsistent) { pending.abandonForShutdown() }
        if pending.park(connection) { return true }
        // Completed before it could be parked (or the server is stopping): answer now. `context.deferred` stays
        // set until the request ends, so that `finish` unregisters it.
        if let make = pending.take() { return queue(run(make, for: request), for: context, on: connection) }
        return queue(stopping(context), for: context, on: connection)
    }

    /// Pool thread: hands a handler's response to the parked connection's `slot`. A deferred response (a write
    /// waiting for its group commit) is followed: its closure runs on a pool thread too once it completes.
    private func deliver(_ response: HTTPResponse, to slot: DeferredResponse, request: HTTPRequest) {
        guard case .deferred(let inner) = response.body else {
            slot.complete { response }
            return
        }
        inner.forward { [self] make in
            let next: HandlerPool.Job = { [self] in
                let answer = run(make, for: request)
                slot.complete { answer }
            }
            if let pool { pool.submitContinuation(next) } else { next() }
        }
    }

    /// Runs a deferred response's closure with a handler's error mapping.
    private func run(_ make: DeferredResponse.Make, for request: HTTPRequest) -> HTTPResponse {
        do {
            let response = try make()
            if case .deferred = response.body {
                preconditionFailure("a deferred response must complete with a final response")
            }
            return response
        } catch let error as HTTPError {
            return error.response(requestID: request.requestID)
        } catch {
            return errorMapper(error, request)
        }
    }

    /// Routes and runs the handler, turning every outcome into a response; nil when the handler asked to be
    /// parked (`ParkRequest`, only while `request.mayWait` is false).
    func respond(to request: inout HTTPRequest, match: Router.Match) -> HTTPResponse? {
        switch match {
        case .notFound:
            return HTTPError.notFound("No resource at \(request.path).").response(requestID: request.requestID)
        case .methodNotAllowed(let allowed):
            return HTTPError(
                .methodNotAllowed,
                detail: "\(request.method) is not allowed on \(request.path); use \(allowed.joined(separator: ", ")).",
                headers: ["Allow": allowed.joined(separator: ", ")]
            ).response(requestID: request.requestID)
        case .found(let route, let parameters):
            request.pathParameters = parameters
            do {
                return try route.handler(request)
            } catch is ParkRequest where !request.mayWait {
                return nil
            } catch let error as HTTPError {
                return error.response(requestID: request.requestID)
            } catch {
                return errorMapper(error, request)
            }
        }
    }

    /// The problem for a request refused from its request line alone.
    private func refused(_ refusal: RequestContext.Refusal) -> HTTPError {
        switch refusal {
        case .uriTooLong(let bytes):
            HTTPError(
                .uriTooLong,
                detail: "The request target is \(bytes) bytes; at most \(configuration.maxURIBytes) are read. "
                    + "Send long inputs in a POST body.")
        case .nulInPath:
            HTTPError.notFound("No resource at this path: it contains %00 (a NUL byte), which no path here has.")
        case .tooManyParameters(let count):
            HTTPError(
                .tooManyQueryParameters,
                detail: "The query has \(count) parameters; at most \(configuration.maxQueryParameters) are read. "
                    + "Send only the parameters the operation documents.")
        }
    }

    /// The path as the access log writes it: a path whose route has a `{token}` (a share link, a tracking
    /// link) is written as the route pattern, so that a secret in the path never reaches the log.
    static func loggedPath(_ path: String, route: String) -> String {
        route.contains("{token}") ? route : path
    }

    /// 503 `server_busy`: every handler thread is busy and the queue is full.
    private func busy(_ context: RequestContext, pool: HandlerPool) -> HTTPResponse {
        let retry = configuration.busyRetryAfterSeconds
        return HTTPError(
            .serverBusy,
            detail: "All \(pool.threadCount) handler threads are busy and \(pool.queueCapacity) requests already wait; "
                + "nothing was done. Retry this request after \(retry) s.",
            headers: ["Retry-After": String(retry)]
        ).response(requestID: context.requestID)
    }

    /// 503 `server_stopping`: the server is shutting down and did not run (or finish answering) this request.
    private func stopping(_ context: RequestContext) -> HTTPResponse {
        HTTPError(
            .serverStopping,
            detail: "The server is shutting down and could not answer this request in time; retry it in a few "
                + "seconds (against another instance if there is one). A write may or may not have been made: "
                + "repeat it with the same Idempotency-Key where the operation takes one.",
            headers: ["Retry-After": "5"]
        ).response(requestID: context.requestID)
    }

    private func tooLarge(_ context: RequestContext) -> HTTPResponse {
        HTTPError(
            .contentTooLarge,
            detail: "The request body is larger than \(configuration.maxBodyBytes) bytes."
        ).response(requestID: context.requestID)
    }

    /// Hands `response` to libmicrohttpd (`MHD_queue_response`).
    func queue(_ response: HTTPResponse, for context: RequestContext, on connection: OpaquePointer) -> Bool {
        let mhdResponse: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            mhdResponse = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(
                    buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
            context.bytesSent = context.method == "HEAD" ? 0 : bytes.count
        case .deferred:
            preconditionFailure("deferred responses are resolved before they are queued")
        case .stream(let stream):
            let streamContext = StreamContext(stream: stream, connection: connection, server: self)
            mhdResponse = MHD_create_response_from_callback(
                cab_mhd_size_unknown(), 16 * 1024, cabStreamRead, Unmanaged.passRetained(streamContext).toOpaque(),
                cabStreamFree)
            if mhdResponse == nil {
                // libmicrohttpd did not take the context: balance the retain and close the stream.
                Unmanaged.passUnretained(streamContext).release()
                stream.close()
            } else {
                context.stream = streamContext
                streams.withLock { $0[ObjectIdentifier(streamContext)] = streamContext }
                if isStopping.load(ordering: .sequentiallyConsistent) { streamContext.endForShutdown() }
            }
        }
        guard let mhdResponse else { return false }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers { _ = MHD_add_response_header(mhdResponse, name, value) }
        if response.header("X-Request-Id") == nil {
            _ = MHD_add_response_header(mhdResponse, "X-Request-Id", context.requestID)
        }
        if isStopping.load(ordering: .sequentiallyConsistent) {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        context.status = response.status
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse) == .YES
    }

    /// The request is over: access log line, metrics, in-flight count.
    func finish(_ context: RequestContext, completedNormally: Bool) {
        // A request that ended before its headers were in (cut off, refused by libmicrohttpd, client gone).
        guard context.begun else { return }
        // A deferred response whose request ends unanswered (the client left, the server stopped): its closure
        // runs now for its effects if it was completed, else `complete` runs it when it comes.
        if let (pending, _) = context.deferred {
            if let make = pending.end() { _ = try? make() }
            _ = parked.withLock { $0.removeValue(forKey: ObjectIdentifier(pending)) }
        }
        let seconds = Double((ContinuousClock.now - context.started) / .microseconds(1)) / 1e6
        let status = context.status ?? 499
        if let stream = context.stream { context.bytesSent = stream.bytesSent }
        let method = HTTPServer.knownMethods.contains(context.method) ? context.method : "OTHER"
        // Label values in declaration order (route, method, status): no label dictionary per request.
        requestsTotal.increment(labelValues: [context.routePattern, method, String(status)])
        requestDuration.observe(seconds, labelValues: [context.routePattern])
        if let accessLog {
            accessLog(
                JSONLine.object([
                    ("time", .string(context.startedAt)), ("request_id", .string(context.requestID)),
                    ("method", .string(context.method)),
                    ("path", .string(Self.loggedPath(context.path, route: context.routePattern))),
                    ("route", .string(context.routePattern)), ("status", .int(status)),
                    ("bytes", .int(context.bytesSent)), ("duration_ms", .double(seconds * 1000)),
                    ("remote", .string(context.remoteAddress)), ("completed", .bool(completedNormally)),
                ]))
        }
        inFlight.leave()
    }

    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    private func lookup(_ connection: OpaquePointer, header: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, header).map { String(cString: $0) }
    }
}

/// Counts the bytes of a request's headers (`MHD_get_connection_values`): names, values and the ": " and CRLF
/// of each line.
enum HeaderSize {
    final class Total {
        var bytes = 0
    }

    static func total(_ connection: OpaquePointer) -> Int {
        let total = Total()
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, cabCountHeaderBytes, Unmanaged.passUnretained(total).toOpaque())
        return total.bytes
    }
}

/// `MHD_KeyValueIterator` adding one header's size to a `HeaderSize.Total`.
func cabCountHeaderBytes(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls else { return .YES }
    let total = Unmanaged<HeaderSize.Total>.fromOpaque(cls).takeUnretainedValue()
    total.bytes += (key.map { strlen($0) } ?? 0) + (value.map { strlen($0) } ?? 0) + 4
    return .YES
}
