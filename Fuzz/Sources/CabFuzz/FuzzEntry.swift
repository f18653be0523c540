import Foundation

#if CAB_FUZZING
    /// libFuzzer's entry point: the target is named by `CAB_FUZZ_TARGET` (pbf, json, osmand, tariff, http).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func cabFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        FuzzTargets.run(FuzzEntry.target, data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }

    enum FuzzEntry {
        static let target = ProcessInfo.processInfo.environment["CAB_FUZZ_TARGET"] ?? "json"
    }

    /// libFuzzer's driver (`LLVMFuzzerRunDriver`, in the runtime `-sanitize=fuzzer` links).
    @_silgen_name("LLVMFuzzerRunDriver")
    func llvmFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The executable's entry point: SwiftPM links `main` to `<module>_main`, so libFuzzer's own `main` is not used;
    /// this one hands the arguments to libFuzzer's driver.
    @_cdecl("CabFuzz_main")
    public func cabFuzzMain(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> CInt {
        var count = argc
        var arguments = argv
        return llvmFuzzerRunDriver(&count, &arguments) { data, size in cabFuzzTestOneInput(data, size) }
    }
#else
    /// Without libFuzzer: `CabFuzz TARGET PATH...` runs every file under each PATH through TARGET once and prints
    /// how many ran; a crash stops it. `make test` replays the checked-in corpus this way.
    @main
    enum FuzzReplay {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let target = arguments.first, FuzzTargets.names.contains(target), arguments.count > 1 else {
                FileHandle.standardError.write(
                    Data("usage: CabFuzz \(FuzzTargets.names.joined(separator: "|")) FILE_OR_DIR...\n".utf8))
                exit(64)
            }
            var files: [String] = []
            for path in arguments.dropFirst() {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                    files += names.sorted().map { path + "/" + $0 }
                } else {
                    files.append(path)
                }
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                FuzzTargets.run(target, Array(data))
            }
            print("\(target): \(files.count) inputs replayed, no crash")
        }
    }
#endif
