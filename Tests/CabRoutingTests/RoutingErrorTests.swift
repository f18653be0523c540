import Testing

@testable import CabRouting

@Suite struct RoutingErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = RoutingError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
