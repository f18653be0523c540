import CCrypto

/// OpenSSL's libcrypto, the parts SwiftCab uses: the OS's cryptographic random source and SHA-256.
public enum Crypto {
    /// Why the random source failed.
    public struct RandomFailure: Error, Sendable {}

    /// `count` bytes from the cryptographic random source (`RAND_bytes`).
    public static func randomBytes(_ count: Int) throws(RandomFailure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard ok == 1 else { throw RandomFailure() }
        return bytes
    }

    /// The SHA-256 digest of `bytes` (`SHA256`).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = bytes.withUnsafeBufferPointer { src in
            digest.withUnsafeMutableBufferPointer { CCrypto.SHA256(src.baseAddress, src.count, $0.baseAddress) }
        }
        return digest
    }
}
