import CabTestSupport
import Foundation
import Testing

@testable import CabAPI

@Suite struct QRCodeTests {
    /// zbarimg (Debian zbar-tools) decodes what we draw: the proof that it is a real QR code.
    @Test(arguments: ["png", "svg"])
    func zbarimgDecodesTheBookingID(format: String) throws {
        try #require(ZBar.isInstalled, "install zbar-tools")
        let id = "bk_7Q2M4XKJ9D3TPA6W"
        let code = try QRCode(encoding: id)
        let dir = try TestData.temporaryDirectory("qr")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("code.\(format)")
        if format == "png" {
            try Data(code.png()).write(to: file)
        } else {
            // zbarimg reads SVG through ImageMagick only when it has the delegate; PNG is the decisive check,
            // so for SVG check the structure: one dark square per dark module.
            let svg = code.svg()
            let squares = svg.components(separatedBy: "h8v8h-8z").count - 1
            #expect(squares == code.modules.filter { $0 }.count)
            #expect(svg.hasPrefix("<svg"))
            return
        }
        #expect(try ZBar.decode(file) == id)
    }
}

@Suite struct TokenAuthorityTests {
    @Test func sha256OfAKnownString() {
        #expect(TokenAuthority.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func tokensAreUniqueAndURLSafe() throws {
        let a = try TokenAuthority.newToken(prefix: "rdr")
        let b = try TokenAuthority.newToken(prefix: "rdr")
        #expect(a != b)
        #expect(a.hasPrefix("rdr_") && a.count == 4 + 43)
        #expect(a.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
    }

    @Test func base64URLMatchesRFC4648Vectors() {
        #expect(TokenAuthority.base64URL(Array("foob".utf8)) == "Zm9vYg")
        #expect(TokenAuthority.base64URL(Array("fooba".utf8)) == "Zm9vYmE")
        #expect(TokenAuthority.base64URL(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(TokenAuthority.base64URL([0xfb, 0xff]) == "-_8")
    }
}
