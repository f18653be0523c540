import CabCore
import CabGeo
import Foundation
import Synchronization
import Testing

@testable import CabStore

@Suite struct AccountStoreTests {
    @Test func tokensResolveToTheirAccountUntilRevoked() throws {
        let f = try StoreFixture()
        let riderHash = StoreFixture.randomHash()
        let rider = Rider(id: .random(), name: "Ilona", createdAt: f.clockStart)
        try f.store.createRider(rider, tokenHash: riderHash)
        let dispatcherHash = StoreFixture.randomHash()
        let dispatcher = Dispatcher(id: .random(), name: "Desk", createdAt: f.clockStart)
        try f.store.createDispatcher(dispatcher, tokenHash: dispatcherHash)
        #expect(try f.store.principal(forTokenHash: riderHash) == .rider(rider.id))
        #expect(try f.store.principal(forTokenHash: dispatcherHash) == .dispatcher(dispatcher.id))
        #expect(try f.store.principal(forTokenHash: StoreFixture.randomHash()) == nil)
        #expect(try f.store.rider(rider.id) == rider)
        #expect(try f.store.dispatcher(dispatcher.id) == dispatcher)
        #expect(try f.store.revokeToken(riderHash, at: f.clockStart.adding(seconds: 5)))
        #expect(try f.store.principal(forTokenHash: riderHash) == nil)
        #expect(try !f.store.revokeToken(riderHash, at: f.clockStart.adding(seconds: 6)))
        #expect(try f.store.driver(f.driver)?.plate == "ABC-123")
    }

    @Test func aTokenRevokedByAnotherProcessStopsWorkingWhenItsCacheEntryExpires() throws {
        let f = try StoreFixture()
        let clock = Mutex<Int64>(0)
        let server = try SQLiteStore(
            path: f.path,
            configuration: .init(tokenCacheMilliseconds: 5_000, monotonicMilliseconds: { clock.withLock { $0 } }))
        defer { server.close() }
        let hash = StoreFixture.randomHash()
        let rider = Rider(id: .random(), name: "Ilona", createdAt: f.clockStart)
        try f.store.createRider(rider, tokenHash: hash)
        #expect(try server.principal(forTokenHash: hash) == .rider(rider.id))
        #expect(try f.store.revokeToken(hash, at: f.clockStart.adding(seconds: 1)))  // the other "process"
        clock.withLock { $0 = 4_999 }
        #expect(try server.principal(forTokenHash: hash) == .rider(rider.id))  // cached, within the lifetime
        clock.withLock { $0 = 5_000 }
        #expect(try server.principal(forTokenHash: hash) == nil)
    }

    @Test func aTokenRevokedThroughTheStoreIsRefusedAtOnceAndUnknownTokensAreNotCached() throws {
        let f = try StoreFixture()
        let hash = StoreFixture.randomHash()
        #expect(try f.store.principal(forTokenHash: hash) == nil)
        let rider = Rider(id: .random(), name: "Late", createdAt: f.clockStart)
        try f.store.createRider(rider, tokenHash: hash)
        #expect(try f.store.principal(forTokenHash: hash) == .rider(rider.id))  // a miss was not remembered
        #expect(try f.store.principal(forTokenHash: hash) == .rider(rider.id))  // now from the cache
        #expect(try f.store.revokeToken(hash, at: f.clockStart.adding(seconds: 1)))
        #expect(try f.store.principal(forTokenHash: hash) == nil)
    }

    @Test func aDuplicateTokenHashIsRefusedAndLeavesNoAccount() throws {
        let f = try StoreFixture()
        let hash = StoreFixture.randomHash()
        try f.store.createRider(Rider(id: .random(), name: "A", createdAt: f.clockStart), tokenHash: hash)
        let second = Rider(id: .random(), name: "B", createdAt: f.clockStart)
        #expect(throws: StoreError.self) { try f.store.createRider(second, tokenHash: hash) }
        #expect(try f.store.rider(second.id) == nil)
    }

    @Test func driverTrailsAreDedupedAndRangeLimited() throws {
        let f = try StoreFixture()
        let fixes = (0..<10).map { i in
            DriverLocationRecord(
                driverID: f.driver, time: f.clockStart.adding(seconds: i * 5),
                coordinate: Coordinate(latitude: 60.17 + Double(i) * 1e-4, longitude: 24.94), accuracyMeters: 5,
                speedMetersPerSecond: 8.5, headingDegrees: i == 0 ? nil : 90)
        }
        #expect(try f.store.append(fixes) == 10)
        #expect(try f.store.append(Array(fixes[5...]) + [fixes[0]]) == 0)  // a retried upload changes nothing
        let trail = try f.store.trail(
            of: f.driver, from: f.clockStart.adding(seconds: 10), to: f.clockStart.adding(seconds: 30), limit: 100)
        #expect(trail == Array(fixes[2..<6]))
        #expect(
            try f.store.trail(of: f.driver, from: f.clockStart, to: f.clockStart.adding(seconds: 100), limit: 3)
                == Array(fixes[0..<3]))
        let stranger = DriverLocationRecord(
            driverID: .random(), time: f.clockStart, coordinate: Coordinate(latitude: 0, longitude: 0))
        #expect(throws: StoreError.self) { try f.store.append([stranger]) }
    }
}
