import SwiftUI
import UIKit

/// The rider's QR code (the server's PNG, fetched by `RiderModel`: it carries a secret only the server makes),
/// drawn with sharp edges for the driver's camera.
public struct PickupCodeImage: View {
    private let image: UIImage?

    /// The code in `png`; nothing is drawn when the bytes are no image.
    public init(png: Data) { image = UIImage(data: png) }

    public var body: some View {
        if let image {
            Image(uiImage: image)
                .interpolation(.none)
                .resizable()
                .scaledToFit()
                .accessibilityLabel("Your trip's QR code, for the driver to scan")
        }
    }
}
