import Testing

@testable import CabTracking

@Suite struct TrackingErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = TrackingError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
