import CabAppModels
import Foundation
import Testing

/// The server address typed on the apps' first screen.
@Suite struct ServerAddressTests {
    @Test(arguments: [
        ("http://localhost:8080", "http://localhost:8080"),
        ("  http://192.168.1.10:8080/ \n", "http://192.168.1.10:8080"),
        ("192.168.1.10:8080", "http://192.168.1.10:8080"),  // no scheme typed: plain HTTP, as `make run` serves
        ("mac-mini.local:8080", "http://mac-mini.local:8080"),
        ("HTTPS://cab.example.org", "https://cab.example.org"),
    ])
    func anAddressWithAHostIsTheBaseURL(text: String, base: String) {
        #expect(ServerAddress.url(from: text)?.absoluteString == base)
        #expect(ServerAddress.problem(with: text) == nil)
    }

    @Test(arguments: [
        "ftp://192.168.1.10", "http://", "http://192.168.1.10:8080/v1/bookings", "http://host?x=1",
        "http://user:pw@host", "http://my host", "localhost:8080x",
    ])
    func anythingElseIsRefusedInWords(text: String) {
        #expect(ServerAddress.url(from: text) == nil)
        #expect(ServerAddress.problem(with: text)?.hasPrefix("That is not a server address.") == true)
    }

    @Test func anEmptyFieldAsksForTheAddress() {
        #expect(ServerAddress.url(from: " ") == nil)
        #expect(
            ServerAddress.problem(with: "")
                == "Type the address of the SwiftCab server, for example http://localhost:8080.")
        #expect(ServerAddress.url(from: ServerAddress.suggested) != nil)
    }

    @Test func aTokenIsKeptPerRoleAndServer() throws {
        let lan = try #require(ServerAddress.url(from: "192.168.1.10:8080"))
        let other = try #require(ServerAddress.url(from: "192.168.1.10:9090"))
        #expect(ServerAddress.account("rider", at: lan) == "rider@192.168.1.10:8080")
        #expect(ServerAddress.account("rider", at: lan) != ServerAddress.account("rider", at: other))
        #expect(ServerAddress.account("driver", at: lan) != ServerAddress.account("rider", at: lan))
        #expect(ServerAddress.fileName("driver", at: lan, suffix: ".json") == "driver_192_168_1_10_8080.json")
        #expect(
            ServerAddress.fileName("driver", at: lan, suffix: ".json")
                != ServerAddress.fileName("driver", at: other, suffix: ".json"))
    }
}
