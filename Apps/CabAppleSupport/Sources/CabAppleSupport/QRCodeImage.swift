import CoreImage
import CoreImage.CIFilterBuiltins
import SwiftUI

/// The rider's QR code drawn on the device (`CIFilter.qrCodeGenerator`) from the booking's `qr_code`
/// (`RiderFlow.pickupCode`: `<booking id>.<secret>`, signed by the server), for the driver's camera.
public struct QRCodeImage: View {
    private let image: CGImage?

    /// The code of `payload`.
    public init(_ payload: String) { image = Self.render(payload) }

    public var body: some View {
        if let image {
            Image(image, scale: 1, label: Text("Your trip's QR code, for the driver to scan"))
                .interpolation(.none)
                .resizable()
                .scaledToFit()
        } else {
            EmptyView()  // the PIN beside it starts the trip as well
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
