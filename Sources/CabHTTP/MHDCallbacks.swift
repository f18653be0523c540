import CMicroHTTPD

// The C callbacks libmicrohttpd calls on its worker threads. They stay thin: recover the Swift objects from
// their `Unmanaged` context pointers and hand over to `HTTPServer` / `StreamContext`.

/// `MHD_AccessHandlerCallback`: called after the headers, for each piece of body, and once the body is complete.
func cabAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestContext else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    func requestLine(_ context: RequestContext) {
        context.setRequestLine(
            method: method.map { String(cString: $0) } ?? "GET", url: url.map { String(cString: $0) } ?? "/",
            version: version.map { String(cString: $0) } ?? "")
    }
    if let existing = requestContext.pointee {
        let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
        if !context.begun {  // made by `cabURILog`: this is the call after the headers
            requestLine(context)
            return server.begin(context, on: connection) ? .YES : .NO
        }
        if uploadDataSize.pointee > 0, let uploadData {
            let bytes = UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee)
            uploadDataSize.pointee = 0
            return server.receive(bytes, for: context) ? .YES : .NO
        }
        return server.complete(context, on: connection) ? .YES : .NO
    }
    let context = RequestContext()
    requestLine(context)
    // The request owns one reference until `cabRequestCompleted` takes it back.
    requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
    return server.begin(context, on: connection) ? .YES : .NO
}

/// `MHD_RequestCompletedCallback`: the response was sent, or the client went away, or the server stopped.
func cabRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    guard let cls, let requestContext, let pointer = requestContext.pointee else { return }
    requestContext.pointee = nil
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
    if let connection { server.deadlines.enter(.awaitingRequest, connection) }
    server.finish(context, completedNormally: reason == .REQUEST_TERMINATED_COMPLETED_OK)
}

/// `MHD_KeyValueIterator`: collects headers or query arguments into a `KeyValueCollector`.
func cabCollectKeyValue(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<KeyValueCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.add(String(cString: key), value.map { String(cString: $0) } ?? "")
    return .YES
}

/// `MHD_ContentReaderCallback`: fills libmicrohttpd's buffer from a `ResponseStream`.
func cabStreamRead(
    _ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int
)
    -> Int
{
    guard let cls, let buffer else { return cab_mhd_end_with_error() }
    let stream = Unmanaged<StreamContext>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
}

/// `MHD_ContentReaderFreeCallback`: the streamed response is done (finished, client gone, server stopped).
func cabStreamFree(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<StreamContext>.fromOpaque(cls).takeRetainedValue().responseFreed()
}

/// Collects key/value pairs from `MHD_get_connection_values`.
final class KeyValueCollector {
    var values: [String: String] = [:]
    let lowercaseKeys: Bool
    let joinRepeated: Bool

    init(lowercaseKeys: Bool, joinRepeated: Bool) {
        self.lowercaseKeys = lowercaseKeys
        self.joinRepeated = joinRepeated
    }

    func add(_ key: String, _ value: String) {
        let key = lowercaseKeys ? key.lowercased() : key
        if let existing = values[key] {
            if joinRepeated { values[key] = existing + ", " + value }
        } else {
            values[key] = value
        }
    }
}
