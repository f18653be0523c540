import Testing

@testable import CabOSM

@Suite struct OSMErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = OSMError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
