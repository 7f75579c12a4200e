import ServerMetrics

extension PosternMetrics {
    /// The one registry of this process, its `postern_build_info` naming this build (``PosternVersion``).
    public static let shared = PosternMetrics(version: PosternVersion.text)
}
