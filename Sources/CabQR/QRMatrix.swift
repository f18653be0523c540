import CQREncode

/// A QR code's modules as a square matrix (libqrencode), with no drawing: the caller renders it.
public struct QRMatrix: Sendable, Equatable {
    /// Modules per side.
    public let size: Int
    /// Row-major, true = dark.
    public let modules: [Bool]

    /// Encodes `text` as 8-bit data with error correction level M (`QRcode_encodeString`); nil when the text is too
    /// long for any QR version.
    public init?(encoding text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // The low bit of each byte is the module's colour (qrencode.h).
        modules = (0..<width * width).map { (code.pointee.data[$0] & 1) == 1 }
    }
}
