import CabGeo
import Foundation
import Testing

@testable import CabCore

@Suite struct IdentifierTests {
    @Test func bookingIDIsPrefixAndSixteenBase32Symbols() {
        let id = BookingID(randomBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(id.rawValue == "bk_0000000000000000")
        let all = BookingID(randomBytes: Array(repeating: 0xff, count: 10))
        #expect(all.rawValue == "bk_zzzzzzzzzzzzzzzz")
        var generator = SystemRandomNumberGenerator()
        let random = BookingID.random(using: &generator)
        #expect(random.rawValue.count == 19 && random.rawValue.hasPrefix("bk_"))
        #expect(Base32.encode([0x84, 0x21, 0x08, 0x42, 0x10]) == "gggggggg")
    }

    @Test func parsingNormalisesCaseAndLookAlikesButRefusesOtherKinds() {
        let id = BookingID(randomBytes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(BookingID(id.rawValue.uppercased()) == id)
        #expect(BookingID("bk_0000000000000001") == BookingID("BK_OOOOOOOOOOOOOOOI"))
        #expect(BookingID("ri_" + id.rawValue.dropFirst(3)) == nil)
        #expect(RiderID(id.rawValue) == nil)
        #expect(BookingID(id.rawValue + "0") == nil)
        #expect(BookingID("bk_000000000000000u") == nil)
    }

    @Test func encodesAsAJSONStringAndRefusesForeignIDs() throws {
        let id = DriverID(randomBytes: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
        let data = try JSONEncoder().encode([id])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(id.rawValue)\"]")
        #expect(try JSONDecoder().decode([DriverID].self, from: data) == [id])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([RiderID].self, from: data)
        }
    }

    @Test func timeOrderedIDsSortByTimeAndParseBack() {
        var generator = SplitMix64(seed: 7)
        let start = Instant(millisecondsSinceEpoch: 1_780_000_000_000)
        // Several per millisecond, in time order: the texts sort the same way (ties broken by the random part).
        let ids = (0..<2_000).map {
            BookingID.timeOrdered(at: start.adding(milliseconds: Int64($0 / 3)), using: &generator)
        }
        for i in 3..<ids.count { #expect(ids[i - 3].rawValue < ids[i].rawValue) }  // one millisecond apart
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(20) { #expect(BookingID(id.rawValue) == id) }
        // Years apart still sort, and the random part differs between two ids of one millisecond.
        let a = BookingID.timeOrdered(at: Instant(millisecondsSinceEpoch: 1), using: &generator)
        let b = BookingID.timeOrdered(at: Instant(millisecondsSinceEpoch: 4_102_444_800_000), using: &generator)
        #expect(a.rawValue < b.rawValue)
    }
}
