import CabQR
import CabZlib

/// A QR code as a square matrix of dark and light modules (`CabQR`), drawn as SVG or PNG.
public struct QRCode: Sendable, Equatable {
    /// Modules per side.
    public let size: Int
    /// Row-major, true = dark.
    public let modules: [Bool]

    /// Encodes `text` as 8-bit data with error correction level M (`QRcode_encodeString`).
    public init(encoding text: String) throws(APIError) {
        guard let matrix = QRMatrix(encoding: text) else {
            throw APIError(.init("qr"), "The text is too long for a QR code.")
        }
        size = matrix.size
        modules = matrix.modules
    }

    /// True when the module at `x`, `y` is dark.
    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// An SVG drawing with a 4-module quiet zone, one path for all dark modules.
    public func svg(moduleSize: Int = 8) -> String {
        let side = (size + 8) * moduleSize
        var path = ""
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) {
                path += "M\((x + 4) * moduleSize) \((y + 4) * moduleSize)h\(moduleSize)v\(moduleSize)h-\(moduleSize)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(side)" height="\(side)" viewBox="0 0 \(side) \(side)" \
            shape-rendering="crispEdges"><rect width="100%" height="100%" fill="#fff"/>\
            <path fill="#000" d="\(path)"/></svg>
            """
    }

    /// A greyscale PNG with a 4-module quiet zone (`CabZlib` for the image data).
    public func png(moduleSize: Int = 8) -> [UInt8] {
        let side = (size + 8) * moduleSize
        var raw: [UInt8] = []
        raw.reserveCapacity((side + 1) * side)
        for py in 0..<side {
            raw.append(0)  // filter type: none
            let y = py / moduleSize - 4
            for px in 0..<side {
                let x = px / moduleSize - 4
                let dark = x >= 0 && y >= 0 && x < size && y < size && isDark(x: x, y: y)
                raw.append(dark ? 0 : 255)
            }
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += bigEndian(UInt32(side)) + bigEndian(UInt32(side))
        header += [8, 0, 0, 0, 0]  // 8-bit greyscale, deflate, no filter method, no interlace
        appendChunk("IHDR", header, to: &out)
        appendChunk("IDAT", Zlib.compress(raw), to: &out)
        appendChunk("IEND", [], to: &out)
        return out
    }

    private func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += bigEndian(UInt32(data.count))
        out += typeBytes
        out += data
        out += bigEndian(Zlib.crc32(typeBytes + data))
    }

    private func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
    }
}
