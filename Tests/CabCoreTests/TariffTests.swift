import Foundation
import Testing

@testable import CabCore

@Suite struct TariffTests {
    @Test(arguments: [(10_000, 1200), (1_000, 120), (1_234, 148), (0, 0), (42_195, 5063), (2_500, 300)])
    func defaultTariffIsKilometresTimesOnePointTwoEuros(meters: Int, cents: Int64) {
        let fare = Tariff.standard.fare(distanceMeters: meters, durationSeconds: 1_800)
        #expect(fare.total == Money(minorUnits: cents, currency: .eur))
        #expect(fare.lines.map(\.kind) == (cents == 0 ? [] : [.distance]))
    }

    @Test func tenKilometresCostTwelveEuros() {
        #expect(Tariff.standard.fare(distanceMeters: 10_000, durationSeconds: 600).total.description == "12.00 EUR")
    }

    @Test func roundsEachLineHalfUp() throws {
        let tariff = try Tariff(currency: .eur, perKilometer: 1, perMinute: 1)
        #expect(tariff.fare(distanceMeters: 500, durationSeconds: 0).total.minorUnits == 1)
        #expect(tariff.fare(distanceMeters: 499, durationSeconds: 0).total.minorUnits == 0)
        #expect(tariff.fare(distanceMeters: 0, durationSeconds: 30).total.minorUnits == 1)
        #expect(tariff.fare(distanceMeters: 0, durationSeconds: 29).total.minorUnits == 0)
        // 0.5 + 0.5 would be 1 if summed before rounding; each line rounds on its own: 1 + 1.
        #expect(tariff.fare(distanceMeters: 500, durationSeconds: 30).total.minorUnits == 2)
    }

    @Test func minimumTopsUpAndBookingFeeComesOnTop() throws {
        let tariff = try Tariff(
            currency: .eur, baseFare: 250, perKilometer: 120, perMinute: 30, minimumFare: 700, bookingFee: 50)
        let short = tariff.fare(distanceMeters: 1_000, durationSeconds: 120)  // 250 + 120 + 60 = 430
        #expect(short.amount(.minimum).minorUnits == 270)
        #expect(short.total.minorUnits == 750)
        let long = tariff.fare(distanceMeters: 10_000, durationSeconds: 900)  // 250 + 1200 + 450 = 1900
        #expect(long.amount(.minimum).isZero)
        #expect(long.total.minorUnits == 1950)
        for fare in [short, long] {
            #expect(fare.lines.reduce(0) { $0 + $1.amount.minorUnits } == fare.total.minorUnits)
        }
        #expect(long.lines.first { $0.kind == .distance }?.detail == "10.000 km × 1.20 EUR")
    }

    @Test func cancellationFeeOnlyAfterGraceWhenTheDriverIsNotLate() {
        let tariff = Fixtures.tariff(cancellationFee: 500, graceSeconds: 120)
        let accepted = Instant(secondsSinceEpoch: 1_000)
        func fee(_ after: Int, acceptedAt: Instant? = accepted, arrived: Bool = false, promised: Int? = nil) -> Int64 {
            tariff.cancellationFee(
                driverAcceptedAt: acceptedAt, driverArrived: arrived,
                promisedPickupAt: promised.map { accepted.adding(seconds: $0) },
                cancelledAt: accepted.adding(seconds: after)
            ).minorUnits
        }
        #expect(fee(600, acceptedAt: nil) == 0)  // no driver yet
        #expect(fee(120) == 0)  // grace is inclusive
        #expect(fee(121) == 500)
        #expect(fee(400, promised: 300) == 0)  // driver late for the promised pickup
        #expect(fee(400, arrived: true, promised: 300) == 500)  // late but there: fee applies
        #expect(fee(200, promised: 300) == 500)
    }

    @Test func decodesTheDocumentedFileShape() throws {
        let json = """
            {"currency": "EUR", "base_fare": 250, "per_km": 120, "per_minute": 30, "minimum_fare": 700,
             "booking_fee": 50, "cancellation_fee": 500, "cancellation_grace_seconds": 120}
            """
        let tariff = try JSONDecoder().decode(Tariff.self, from: Data(json.utf8))
        #expect(tariff.baseFare == 250 && tariff.minimumFare == 700 && tariff.cancellationFee == 500)
        let minimal = try JSONDecoder().decode(Tariff.self, from: Data(#"{"currency":"EUR","per_km":120}"#.utf8))
        #expect(minimal == Tariff.standard)
        let again = try JSONDecoder().decode(Tariff.self, from: try JSONEncoder().encode(tariff))
        #expect(again == tariff)
    }

    @Test(arguments: [
        (#"{"currency":"EUR","per_kilometre":120}"#, "per_kilometre"),
        (#"{"currency":"EUR","per_km":-1}"#, "per_km is -1"),
        (#"{"currency":"EURO","per_km":120}"#, "ISO 4217"),
        (#"{"currency":"EUR"}"#, "per_km"),
        (#"{"currency":"EUR","per_km":120,"cancellation_grace_seconds":-5}"#, "cancellation_grace_seconds is -5"),
    ])
    func refusesBadFilesSayingWhatIsWrong(json: String, mention: String) {
        let error = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Tariff.self, from: Data(json.utf8))
        }
        #expect("\(String(describing: error))".contains(mention))
    }
}
