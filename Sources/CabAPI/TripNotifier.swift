import CabCore
import CabHTTP
import Synchronization

/// Fans trip events out to open SSE streams: each driver's `/v1/driver/stream` and each booking's rider and
/// tracking-link streams. Sending never blocks: every `EventStream` has a bounded queue that drops its oldest.
final class TripNotifier: Sendable {
    private struct State {
        var drivers: [DriverID: [ObjectIdentifier: EventStream]] = [:]
        var bookings: [BookingID: [ObjectIdentifier: EventStream]] = [:]
    }

    private let state = Mutex(State())

    /// Sends `driver`'s events to `stream` until it closes.
    func subscribe(driver: DriverID, _ stream: EventStream) {
        let key = ObjectIdentifier(stream)
        state.withLock { $0.drivers[driver, default: [:]][key] = stream }
        stream.onClose { [weak self] in
            self?.state.withLock { s in
                s.drivers[driver]?[key] = nil
                if s.drivers[driver]?.isEmpty == true { s.drivers[driver] = nil }
            }
        }
    }

    /// Sends `booking`'s events to `stream` until it closes (or the trip ends).
    func subscribe(booking: BookingID, _ stream: EventStream) {
        let key = ObjectIdentifier(stream)
        state.withLock { $0.bookings[booking, default: [:]][key] = stream }
        stream.onClose { [weak self] in
            self?.state.withLock { s in
                s.bookings[booking]?[key] = nil
                if s.bookings[booking]?.isEmpty == true { s.bookings[booking] = nil }
            }
        }
    }

    /// Sends `event` with JSON `data` to every stream of `driver`.
    func send(_ event: String, _ data: some Encodable, toDriver driver: DriverID) {
        let streams = state.withLock { Array(($0.drivers[driver] ?? [:]).values) }
        guard !streams.isEmpty else { return }
        let text = Self.encode(data)
        for s in streams { s.send(event: event, data: text) }
    }

    /// Sends `event` with JSON `data` to every stream following `booking`.
    func send(_ event: String, _ data: some Encodable, toBooking booking: BookingID) {
        let streams = state.withLock { Array(($0.bookings[booking] ?? [:]).values) }
        guard !streams.isEmpty else { return }
        let text = Self.encode(data)
        for s in streams { s.send(event: event, data: text) }
    }

    /// Ends every stream following `booking` once its queued events are sent (the trip is over).
    func finish(booking: BookingID) {
        let streams = state.withLock { $0.bookings.removeValue(forKey: booking).map { Array($0.values) } ?? [] }
        for s in streams { s.finish() }
    }


    static func encode(_ value: some Encodable) -> String {
        do {
            return String(decoding: try JSONCoding.encoder.encode(value), as: UTF8.self)
        } catch {
            preconditionFailure("trip events are plain structs that always encode: \(error)")
        }
    }
}
