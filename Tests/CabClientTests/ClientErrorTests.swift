import Testing

@testable import CabClient

@Suite struct ClientErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = ClientError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
