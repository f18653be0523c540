import Testing

@testable import CabCore

@Suite struct CoreErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = CoreError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
