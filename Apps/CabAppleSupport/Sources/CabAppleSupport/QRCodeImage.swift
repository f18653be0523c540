import CoreImage
import CoreImage.CIFilterBuiltins
import SwiftUI

/// A QR code drawn on the device (`CIFilter.qrCodeGenerator`): the booking id, for the driver to scan.
public struct QRCodeImage: View {
    private let payload: String
    private let image: CGImage?

    /// The code of `payload`.
    public init(_ payload: String) {
        self.payload = payload
        image = Self.render(payload)
    }

    public var body: some View {
        if let image {
            Image(image, scale: 1, label: Text("QR code of booking \(payload)"))
                .interpolation(.none)
                .resizable()
                .scaledToFit()
        } else {
            Text(payload).font(.title3.monospaced())  // the driver can type the id instead
        }
    }

    static func render(_ payload: String) -> CGImage? {
        let filter = CIFilter.qrCodeGenerator()
        filter.message = Data(payload.utf8)
        filter.correctionLevel = "M"
        guard let output = filter.outputImage?.transformed(by: CGAffineTransform(scaleX: 10, y: 10)) else { return nil }
        return CIContext().createCGImage(output, from: output.extent)
    }
}
