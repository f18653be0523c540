/// Everything fast routing precomputes for one graph: the contraction hierarchy, hub labels when they fit, and
/// each edge's ends (to turn unpacked paths into node sequences). Immutable and shared between threads; each
/// thread queries it through its own `FastRouter`.
public struct FastRouterIndex: Sendable {
    /// How to build the index.
    public struct Configuration: Sendable {
        /// Contraction tuning.
        public var contraction: ContractionBuilder.Configuration
        /// Whether to compute hub labels (faster queries, more memory and build time).
        public var buildsHubLabels: Bool
        /// The label budget: labels are built from the top of the hierarchy down until they hold this many
        /// entries (10 bytes each, `LabelEntries`: the default, 24 M, is at most 229 MiB at any map size), and the
        /// nodes below stay unlabelled (their queries climb to the labels, see `HubLabels`). Labels also stop above
        /// ~1 M labelled nodes or a 74-hour label duration, what a packed entry holds. On the N=700 grid 24 M label
        /// the top 40 % of the hierarchy: since the witness searches were lengthened, that gives the many-to-one
        /// what 32 M gave before, with the label pass 0.9 s shorter and the peak memory 134 MB lower than at 32 M
        /// (docs/performance.md, "Metro, eleventh round").
        public var hubLabelEntryLimit: Int

        /// Creates a configuration.
        public init(
            contraction: ContractionBuilder.Configuration = .init(), buildsHubLabels: Bool = true,
            hubLabelEntryLimit: Int = 24_000_000
        ) {
            self.contraction = contraction
            self.buildsHubLabels = buildsHubLabels
            self.hubLabelEntryLimit = hubLabelEntryLimit
        }
    }

    /// The contraction hierarchy (always present; it unpacks paths).
    public let hierarchy: ContractionHierarchy
    /// Hub labels, when built: on every node when they fit the budget, else on the upper hierarchy.
    public let labels: HubLabels?
    /// Tail node of each edge.
    package let edgeFrom: ContractionBuffer<Int32>
    /// Head node of each edge.
    package let edgeTo: ContractionBuffer<Int32>

    /// Nodes of the graph.
    public var nodeCount: Int { hierarchy.nodeCount }
    /// Edges of the graph.
    public var edgeCount: Int { hierarchy.edgeCount }
    /// `ContractionGraph.fingerprint` of the graph it was built from.
    public var graphFingerprint: UInt64 { hierarchy.graphFingerprint }

    init(hierarchy: ContractionHierarchy, labels: HubLabels?, edgeFrom: [Int32], edgeTo: [Int32]) {
        self.init(
            hierarchy: hierarchy, labels: labels, edgeFrom: ContractionBuffer(edgeFrom),
            edgeTo: ContractionBuffer(edgeTo))
    }

    package init(
        hierarchy: ContractionHierarchy, labels: HubLabels?, edgeFrom: ContractionBuffer<Int32>,
        edgeTo: ContractionBuffer<Int32>
    ) {
        self.hierarchy = hierarchy
        self.labels = labels
        self.edgeFrom = edgeFrom
        self.edgeTo = edgeTo
    }

    /// Preprocesses `graph`.
    /// - Complexity: the contraction, then O(n · L²) for labels of average size L.
    public init(graph: ContractionGraph, configuration: Configuration = .init()) {
        let hierarchy = ContractionHierarchy(graph: graph, configuration: configuration.contraction)
        let labels =
            configuration.buildsHubLabels
            ? HubLabels(hierarchy: hierarchy, entryLimit: configuration.hubLabelEntryLimit) : nil
        self.init(
            hierarchy: hierarchy, labels: labels, edgeFrom: graph.edges.map(\.from), edgeTo: graph.edges.map(\.to))
    }
}
