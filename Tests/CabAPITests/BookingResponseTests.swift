import CabCore
import CabGeo
import Foundation
import Testing

@testable import CabAPI
@testable import CabHTTP

/// BOOKING as docs/api.md shapes it, for each kind of viewer.
@Suite struct BookingResponseTests {
    static let rider = RiderID("ri_0000000000000001")!
    static let driver = Driver(
        id: DriverID("dr_0000000000000001")!, name: "Dan", vehicle: "white Prius", plate: "ABC-123",
        createdAt: Instant(secondsSinceEpoch: 1_800_000_000))

    static func booking() -> Booking {
        var b = Booking(
            id: BookingID("bk_0000000000000001")!, riderID: rider,
            pickup: Coordinate(latitude: 60.17, longitude: 24.94),
            dropoff: Coordinate(latitude: 60.16, longitude: 24.95), routeDistanceMeters: 1234,
            routeDurationSeconds: 200,
            fareEstimate: Money(minorUnits: 148, currency: .eur), pin: "0420",
            createdAt: Instant(secondsSinceEpoch: 1_800_000_000),
            routePolyline: Polyline.encode([
                Coordinate(latitude: 60.17, longitude: 24.94), Coordinate(latitude: 60.16, longitude: 24.95),
            ]))
        b.status = .accepted
        b.driverID = driver.id
        b.acceptedAt = Instant(secondsSinceEpoch: 1_800_000_060)
        b.promisedPickupAt = Instant(secondsSinceEpoch: 1_800_000_360)
        return b
    }

    static func json(for viewer: Principal) throws -> [String: Any] {
        let response = HTTPResponse.json(BookingResponse(booking(), viewer: viewer, driver: driver, tariff: .standard))
        guard case .bytes(let bytes) = response.body else { throw CancellationError() }
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func thePINGoesToTheRiderAndDispatchersButNeverToADriver() throws {
        #expect(try Self.json(for: .rider(Self.rider))["pin"] as? String == "0420")
        #expect(try Self.json(for: .dispatcher(DispatcherID("dp_0000000000000001")!))["pin"] as? String == "0420")
        let forDriver = try Self.json(for: .driver(Self.driver.id))
        #expect(forDriver["pin"] is NSNull)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: forDriver), as: UTF8.self)
        #expect(!text.contains("0420"))
    }

    @Test func everyFieldOfTheContractIsPresentWithMoneyInMinorUnits() throws {
        let json = try Self.json(for: .rider(Self.rider))
        let fields = [
            "id", "status", "pickup", "dropoff", "pickup_name", "dropoff_name", "route", "fare", "qr", "pin",
            "created_at",
            "driver", "promised_pickup_eta_s", "promised_pickup_at", "actual_pickup_at", "cancellation", "final_fare",
            "redispatch_count", "late", "receipt", "rating",
        ]
        #expect(fields.filter { json[$0] == nil } == [])
        #expect(json["promised_pickup_eta_s"] as? Int == 300)
        #expect((json["driver"] as? [String: Any])?["plate"] as? String == "ABC-123")
        let total = try #require((json["fare"] as? [String: Any])?["total"] as? [String: Any])
        #expect(total["amount_minor"] as? Int == 148 && total["display"] as? String == "1.48 EUR")
        let geometry = try #require((json["route"] as? [String: Any])?["geometry"] as? [String: Any])
        #expect((geometry["coordinates"] as? [[Double]])?.first == [24.94, 60.17])
    }

    /// Issue 13: the receipt itemises a fare the tariff reproduces, and shows one "Fare" line otherwise.
    @Test func theReceiptItemisesWhatTheTariffReproduces() throws {
        for (booking, _) in BookingResponseBytesTests.variants.suffix(2) {
            let response = BookingResponse(booking, viewer: .rider(Self.rider), driver: nil, tariff: .standard)
            let receipt = try #require(response.receipt)
            let itemised = booking.receipt?.basis == .trail
            #expect(receipt.lines.map(\.label) == (itemised ? ["Distance"] : ["Fare"]))
            #expect(receipt.total.amountMinor == booking.finalFare?.minorUnits)
            #expect(response.late && response.redispatchCount == (itemised ? 2 : 0))
        }
    }

    @Test func aFareTheCurrentTariffCannotReproduceIsShownAsItsStoredTotal() throws {
        var b = Self.booking()
        b.fareEstimate = Money(minorUnits: 999, currency: .eur)
        let fare = BookingResponse.estimate(b, tariff: .standard)
        #expect(fare.total.amountMinor == 999 && fare.lines.map(\.label) == ["estimate"])
    }
}

/// `BookingResponse.jsonBytes()` (hand-written) against `JSONEncoder`, byte for byte, over the shapes a booking
/// takes and over text that needs escaping.
@Suite struct BookingResponseBytesTests {
    static func encoderBytes(_ response: BookingResponse) throws -> [UInt8] {
        Array(try JSONCoding.encoder.encode(response))
    }

    static var variants: [(Booking, Driver?)] {
        var requested = BookingResponseTests.booking()
        requested.status = .requested
        requested.driverID = nil
        requested.acceptedAt = nil
        requested.promisedPickupAt = nil
        var cancelled = BookingResponseTests.booking()
        cancelled.status = .cancelledByRider
        cancelled.pickupName = "Café \"Ekberg\" \\ Bulevardi 9/A\n\t\u{01}\u{1F}\u{7F} 🚕"
        cancelled.dropoffName = "Tennispalatsi </script>"
        cancelled.vehicleType = .large
        cancelled.cancellation = Cancellation(
            by: .rider(BookingResponseTests.rider), at: Instant(millisecondsSinceEpoch: 1_800_000_100_123),
            reason: "changed my mind\r\u{08}\u{0C}", fee: Money(minorUnits: 500, currency: .eur))
        var completed = BookingResponseTests.booking()
        completed.status = .completed
        completed.pickedUpAt = Instant(secondsSinceEpoch: 1_800_000_400)
        completed.finalFare = Money(minorUnits: 1_337, currency: .eur)
        completed.routeDistanceMeters = 987_654  // outside what the tariff reproduces: a one-line estimate
        var noRoute = BookingResponseTests.booking()
        noRoute.routePolyline = nil
        var longRoute = BookingResponseTests.booking()
        longRoute.routePolyline = Polyline.encode(
            (0..<500).map {
                Coordinate(latitude: 60.1 + Double($0) * 0.000_37, longitude: 24.9 - Double($0) * 0.000_91)
            })
        // Issue 13: a receipt the tariff reproduces (itemised), one it does not (one line), a rating, re-dispatches.
        var receipted = completed
        receipted.finalFare = Money(minorUnits: 84, currency: .eur)
        receipted.receipt = TripReceipt(
            distanceMeters: 700, durationSeconds: 70, basis: .trail,
            trailPolyline: Polyline.encode([
                Coordinate(latitude: 60.17, longitude: 24.94), Coordinate(latitude: 60.171, longitude: 24.95),
            ]))
        receipted.rating = try? TripRating(
            stars: 4, comment: "Kiitos \"hyvä\" 🚕", at: Instant(secondsSinceEpoch: 1_800_000_900))
        receipted.redispatchCount = 2
        receipted.pickupOverdueAt = Instant(secondsSinceEpoch: 1_800_000_300)
        var unitemised = completed
        unitemised.receipt = TripReceipt(
            distanceMeters: 1_000, durationSeconds: 60, basis: .bookedRoute, trailPolyline: nil)
        unitemised.rating = try? TripRating(stars: 1, comment: nil, at: Instant(secondsSinceEpoch: 1_800_000_900))
        return [
            (requested, nil), (BookingResponseTests.booking(), BookingResponseTests.driver), (cancelled, nil),
            (completed, BookingResponseTests.driver), (noRoute, nil), (longRoute, BookingResponseTests.driver),
            (receipted, BookingResponseTests.driver), (unitemised, nil),
        ]
    }

    @Test func handWrittenBytesEqualJSONEncodersForEveryShapeAndViewer() throws {
        let viewers: [Principal] = [
            .rider(BookingResponseTests.rider), .driver(BookingResponseTests.driver.id),
            .dispatcher(DispatcherID("dp_0000000000000001")!),
        ]
        for (booking, driver) in Self.variants {
            for viewer in viewers {
                let response = BookingResponse(booking, viewer: viewer, driver: driver, tariff: .standard)
                let fast = response.jsonBytes()
                let slow = try Self.encoderBytes(response)
                #expect(String(decoding: fast, as: UTF8.self) == String(decoding: slow, as: UTF8.self))
            }
        }
    }
}

@Suite struct JSONTextLineStringTests {
    /// The geometry written straight from a polyline is byte for byte what `JSONEncoder` writes for the decoded
    /// points: whole degrees, negative values, trailing zeros, long and short fractions.
    @Test func polylineGeometryEqualsTheEncodersBytes() throws {
        var generator = SplitMix64(seed: 42)
        var lines: [[Coordinate]] = [
            [Coordinate(latitude: 60, longitude: 24), Coordinate(latitude: -0.5, longitude: -179.99999)],
            [Coordinate(latitude: 0.00001, longitude: -0.0001), Coordinate(latitude: 89.1, longitude: 0)],
        ]
        for _ in 0..<200 {
            lines.append(
                (0..<Int.random(in: 1...30, using: &generator)).map { _ in
                    Coordinate(
                        latitude: Double.random(in: -90...90, using: &generator),
                        longitude: Double.random(in: -180...180, using: &generator))
                })
        }
        for line in lines {
            let polyline = Polyline.encode(line)
            var fast = JSONText()
            let written = fast.lineString(polyline: polyline)
            #expect(written)
            let decoded = try #require(Polyline.decode(polyline))
            let expected = try JSONCoding.encoder.encode(GeoJSONLineString(decoded))
            #expect(fast.text == String(decoding: expected, as: UTF8.self))
        }
        var broken = JSONText()
        let refused = !broken.lineString(polyline: "_p~iF~ps|U_")
        #expect(refused)
        #expect(broken.text.isEmpty)
    }
}
