import Testing

@testable import CabAPI

@Suite struct APIErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = APIError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
