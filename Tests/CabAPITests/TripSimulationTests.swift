import CabAPI
import CabBench
import CabCore
import CabRouting
import CabRoutingBench
import CabStore
import Foundation
import Testing

/// A full simulated hour in process (manual clock): every trip ends in a terminal state and the store is consistent.
@Suite struct TripSimulationTests {
    @Test func aSimulatedHourEndsWithEveryTripTerminalAndTheStoreConsistent() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cab-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(
            path: directory.appendingPathComponent("store.sqlite").path, configuration: .init(durable: false))
        defer { store.close() }
        let simulation = TripSimulation(
            graph: SyntheticCity.grid(rows: 25, cols: 25, seed: 7), store: store,
            configuration: TripSimulationConfiguration(
                drivers: 15, bookingsPerHour: 90, durationSeconds: 3_600, declineProbability: 0.2,
                riderCancelProbability: 0.1, driverCancelProbability: 0.05, seed: 42))
        let report = try simulation.run()
        #expect(report.inconsistencies.isEmpty, "\(report.inconsistencies.prefix(5))")
        #expect(report.bookings > 50)
        #expect(report.finalStates["completed", default: 0] > report.bookings / 2)
        #expect(report.finalStates["cancelled_by_rider", default: 0] > 0)
        #expect(report.declines > 0)
        #expect(report.finalStates.values.reduce(0, +) == report.bookings)
    }
}
