/// The QR Code versions this encoder makes (ISO/IEC 18004:2015): 1 to 10, error correction level M (about 15% of
/// the codewords recoverable), enough for an `otpauth://` URI of a long issuer and account (at most 213 bytes).
struct QRVersion: Equatable, Sendable {
    /// 1 to 10.
    let number: Int
    /// Error correction codewords per block (Table 9, level M).
    let eccPerBlock: Int
    /// The blocks' data codewords, shorter blocks first (Table 9, level M).
    let blocks: [Int]

    /// Modules per side: 17 + 4 × version.
    var size: Int { 17 + 4 * number }
    /// Data codewords of the whole symbol.
    var dataCodewords: Int { blocks.reduce(0, +) }
    /// Bits of the byte mode's character count: 8 up to version 9, 16 from 10.
    var countBits: Int { number <= 9 ? 8 : 16 }
    /// Bytes a byte-mode segment fits: the mode (4 bits) and count before them.
    var byteCapacity: Int { (dataCodewords * 8 - 4 - countBits) / 8 }

    /// The centres of the alignment patterns on each axis (Annex E); none for version 1.
    var alignmentCentres: [Int] {
        switch number {
        case 1: []
        case 2...6: [6, size - 7]
        case 7: [6, 22, 38]
        case 8: [6, 24, 42]
        case 9: [6, 26, 46]
        default: [6, 28, 50]
        }
    }

    /// Level M of versions 1 to 10: error correction codewords per block and each block's data codewords.
    static let all: [QRVersion] = [
        QRVersion(number: 1, eccPerBlock: 10, blocks: [16]),
        QRVersion(number: 2, eccPerBlock: 16, blocks: [28]),
        QRVersion(number: 3, eccPerBlock: 26, blocks: [44]),
        QRVersion(number: 4, eccPerBlock: 18, blocks: [32, 32]),
        QRVersion(number: 5, eccPerBlock: 24, blocks: [43, 43]),
        QRVersion(number: 6, eccPerBlock: 16, blocks: [27, 27, 27, 27]),
        QRVersion(number: 7, eccPerBlock: 18, blocks: [31, 31, 31, 31]),
        QRVersion(number: 8, eccPerBlock: 22, blocks: [38, 38, 39, 39]),
        QRVersion(number: 9, eccPerBlock: 22, blocks: [36, 36, 36, 37, 37]),
        QRVersion(number: 10, eccPerBlock: 26, blocks: [43, 43, 43, 43, 44]),
    ]

    /// The smallest version whose byte mode holds `count` bytes; nil past version 10.
    static func smallest(for count: Int) -> QRVersion? { all.first { $0.byteCapacity >= count } }
}
