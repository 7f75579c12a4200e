/// The release this build is: printed by `postern --version`. Raised with each release tag.
public enum PosternVersion {
    /// `MAJOR.MINOR.PATCH`.
    public static let text = "0.7.0"
}
