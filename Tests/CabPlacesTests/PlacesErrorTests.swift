import Testing

@testable import CabPlaces

@Suite struct PlacesErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = PlacesError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
