import AVFoundation
import SwiftUI
import VisionKit

/// The camera reading the rider's QR code (VisionKit's `DataScannerViewController`); the payload goes to
/// `DriverModel.start(code:)`, which checks it. `unavailable` runs when the camera cannot scan after all.
struct QRScanner: UIViewControllerRepresentable {
    let found: (String) -> Void
    let unavailable: () -> Void

    /// Whether the scanner can run now, asking for camera access the first time. False on a simulator and on
    /// phones without the Neural Engine (`isSupported`), and when access is refused or restricted (`isAvailable`).
    @MainActor
    static func cameraReady() async -> Bool {
        guard DataScannerViewController.isSupported else { return false }
        switch AVCaptureDevice.authorizationStatus(for: .video) {
        case .authorized:
            return DataScannerViewController.isAvailable
        case .notDetermined:
            let granted = await AVCaptureDevice.requestAccess(for: .video)
            return granted && DataScannerViewController.isAvailable
        default:
            return false
        }
    }

    func makeUIViewController(context: Context) -> DataScannerViewController {
        let scanner = DataScannerViewController(
            recognizedDataTypes: [.barcode(symbologies: [.qr])], qualityLevel: .balanced,
            recognizesMultipleItems: false, isHighFrameRateTrackingEnabled: false, isHighlightingEnabled: true)
        scanner.delegate = context.coordinator
        return scanner
    }

    func updateUIViewController(_ scanner: DataScannerViewController, context: Context) {
        guard !scanner.isScanning else { return }
        do {
            try scanner.startScanning()
        } catch {
            context.coordinator.unavailable()  // the sheet closes; DriverShift says to type the PIN
        }
    }

    func makeCoordinator() -> Coordinator { Coordinator(found: found, unavailable: unavailable) }

    @MainActor
    final class Coordinator: NSObject, DataScannerViewControllerDelegate {
        let found: (String) -> Void
        let unavailable: () -> Void
        private var done = false

        init(found: @escaping (String) -> Void, unavailable: @escaping () -> Void) {
            self.found = found
            self.unavailable = unavailable
        }

        func dataScanner(
            _ dataScanner: DataScannerViewController, didAdd addedItems: [RecognizedItem], allItems: [RecognizedItem]
        ) {
            for item in addedItems {
                if case .barcode(let code) = item, let payload = code.payloadStringValue, !done {
                    done = true
                    found(payload)
                }
            }
        }

        func dataScanner(
            _ dataScanner: DataScannerViewController,
            becameUnavailableWithError error: DataScannerViewController.ScanningUnavailable
        ) {
            guard !done else { return }
            done = true
            unavailable()
        }
    }
}
