import CabCore
import CabCrypto

/// Makes bearer tokens from the OS's random source and hashes them with SHA-256 (OpenSSL's libcrypto).
/// Only hashes are stored; a token is shown once, when its account is created.
public enum TokenAuthority {
    /// A new token: a prefix naming the role and 32 random bytes in base64url (`RAND_bytes`).
    public static func newToken(prefix: String) throws(APIError) -> String {
        prefix + "_" + base64URL(try randomBytes(32))
    }

    /// `count` bytes from the OS's cryptographic random source (`RAND_bytes`).
    public static func randomBytes(_ count: Int) throws(APIError) -> [UInt8] {
        do {
            return try Crypto.randomBytes(count)
        } catch {
            throw APIError(.init("random"), "The random source failed; try again.")
        }
    }

    /// The SHA-256 of `token`'s UTF-8 bytes, as lower-case hex (`SHA256`).
    public static func hash(_ token: String) -> String { hex(sha256(Array(token.utf8))) }

    /// The SHA-256 digest of `bytes` (`SHA256`).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        Crypto.sha256(bytes)
    }

    /// The stored form of `token`: its SHA-256.
    public static func tokenHash(_ token: String) -> TokenHash { TokenHash(bytes: sha256(Array(token.utf8))) }

    /// Lower-case hex of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    /// base64url without padding (RFC 4648 §5; `Base64URL.encode`).
    public static func base64URL(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }
}
