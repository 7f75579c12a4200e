/// A QR Code symbol (ISO/IEC 18004:2015) of some bytes: byte mode, error correction level M, the smallest of
/// versions 1 to 10 that holds them, and the mask of the lowest penalty (§7.8.3). Pure: bytes in, modules out.
///
/// Built in the standard's order: the segment's bits padded to the version's data codewords (§7.4), the codewords
/// cut into blocks each with its Reed–Solomon codewords and interleaved (§7.6), the function patterns drawn (finders,
/// separators, timing, alignment, the dark module, format and version information), the codewords placed in the
/// two-column zig-zag from the bottom right (§7.7.3), then each of the eight masks tried.
public struct QRCode: Equatable, Sendable {
    /// Modules per side (21 for version 1, 4 more a version).
    public let size: Int
    /// The version, 1 to 10.
    public let version: Int
    /// The mask applied, 0 to 7.
    public private(set) var mask: Int
    /// Rows top to bottom, each module left to right: true is dark.
    public private(set) var modules: [[Bool]]
    /// Which modules are the function patterns' (never masked).
    private var reserved: [[Bool]]

    /// Why some bytes make no symbol here.
    public enum Failure: Error, Equatable, Sendable {
        /// More bytes than version 10 at level M holds in byte mode (213).
        case tooLong
    }

    /// The symbol of `bytes`.
    /// - Parameter mask: the mask to apply (0 to 7); nil chooses the one of the lowest penalty, as readers expect.
    /// - Throws: ``Failure/tooLong``.
    public init(bytes: [UInt8], mask: Int? = nil) throws(Failure) {
        guard let version = QRVersion.smallest(for: bytes.count) else { throw .tooLong }
        let codewords = Self.interleaved(Self.dataCodewords(bytes, version), version)
        var symbol = QRCode(version: version)
        symbol.place(codewords)
        if let mask {
            symbol.apply(mask: mask)
        } else {
            var best: (penalty: Int, symbol: QRCode)?
            for candidate in 0..<8 {
                var masked = symbol
                masked.apply(mask: candidate)
                let penalty = masked.penalty
                if best == nil || penalty < best!.penalty { best = (penalty, masked) }
            }
            symbol = best!.symbol
        }
        self = symbol
    }

    /// The symbol of `text`'s UTF-8 bytes.
    /// - Throws: ``Failure/tooLong``.
    public init(text: String, mask: Int? = nil) throws(Failure) {
        try self.init(bytes: Array(text.utf8), mask: mask)
    }

    /// An empty symbol of `version` with its function patterns drawn (format information of mask 0 for now).
    private init(version: QRVersion) {
        size = version.size
        self.version = version.number
        mask = 0
        modules = Array(repeating: Array(repeating: false, count: version.size), count: version.size)
        reserved = modules
        drawFunctionPatterns(version)
    }

    // MARK: - Codewords

    /// The byte-mode segment (mode 0100, the count, the bytes), the terminator, padded to whole codewords and with
    /// 0xEC 0x11 to the version's data capacity (§7.4.2, §7.4.10).
    static func dataCodewords(_ bytes: [UInt8], _ version: QRVersion) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, version.countBits)
        for byte in bytes { append(Int(byte), 8) }
        let capacity = version.dataCodewords * 8
        append(0, min(4, capacity - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var codewords = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < version.dataCodewords {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// The data codewords cut into the version's blocks, each block's error correction made, and both interleaved:
    /// the blocks' first data codewords, their second, … then their error correction codewords alike (§7.6).
    static func interleaved(_ data: [UInt8], _ version: QRVersion) -> [UInt8] {
        var blocks: [[UInt8]] = []
        var start = 0
        for length in version.blocks {
            blocks.append(Array(data[start..<start + length]))
            start += length
        }
        let corrections = blocks.map { ReedSolomon.remainder($0, degree: version.eccPerBlock) }
        var result: [UInt8] = []
        for index in 0..<(version.blocks.max() ?? 0) {
            for block in blocks where index < block.count { result.append(block[index]) }
        }
        for index in 0..<version.eccPerBlock {
            for correction in corrections { result.append(correction[index]) }
        }
        return result
    }

    // MARK: - Function patterns

    private mutating func set(_ column: Int, _ row: Int, _ dark: Bool) {
        modules[row][column] = dark
        reserved[row][column] = true
    }

    private mutating func drawFunctionPatterns(_ version: QRVersion) {
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        for (column, row) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            // The finder (7 × 7) and its light separator.
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(column + dx) && (0..<size).contains(row + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(column + dx, row + dy, distance != 2 && distance != 4)
                }
            }
        }
        let centres = version.alignmentCentres
        for (i, column) in centres.enumerated() {
            for (j, row) in centres.enumerated() {
                // Not over a finder.
                let last = centres.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(column + dx, row + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormat(mask: 0)
        drawVersion()
    }

    /// The 15 format bits (level M's 00 and the mask, BCH(15, 5), XOR 0x5412) in their two copies, and the dark
    /// module (§7.9).
    private mutating func drawFormat(mask: Int) {
        let data = mask  // level M is 00
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { set(8, index, bit(index)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for index in 9..<15 { set(14 - index, 8, bit(index)) }
        for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
        set(8, size - 8, true)
    }

    /// The 18 version bits (BCH(18, 6)) in their two 6 × 3 copies, from version 7 (§7.10).
    private mutating func drawVersion() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3, b = index / 3
            set(a, b, dark)
            set(b, a, dark)
        }
    }

    // MARK: - Data and masks

    /// The codewords' bits, most significant first, up and down the column pairs from the right, past column 6.
    private mutating func place(_ codewords: [UInt8]) {
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for offset in 0..<2 {
                    let column = right - offset
                    let upward = (right + 1) & 2 == 0
                    let row = upward ? size - 1 - vertical : vertical
                    guard !reserved[row][column], index < codewords.count * 8 else { continue }
                    modules[row][column] = (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }

    /// Whether mask `mask` inverts the module at (`column`, `row`) (§7.8.2, Table 10).
    static func inverts(_ mask: Int, _ column: Int, _ row: Int) -> Bool {
        let (x, y) = (column, row)
        switch mask {
        case 0: return (x + y) % 2 == 0
        case 1: return y % 2 == 0
        case 2: return x % 3 == 0
        case 3: return (x + y) % 3 == 0
        case 4: return (x / 3 + y / 2) % 2 == 0
        case 5: return x * y % 2 + x * y % 3 == 0
        case 6: return (x * y % 2 + x * y % 3) % 2 == 0
        default: return ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    /// The data modules masked with `mask`, and its format information.
    private mutating func apply(mask: Int) {
        for row in 0..<size {
            for column in 0..<size where !reserved[row][column] && Self.inverts(mask, column, row) {
                modules[row][column].toggle()
            }
        }
        drawFormat(mask: mask)
        self.mask = mask
    }

    public static func == (lhs: QRCode, rhs: QRCode) -> Bool {
        lhs.version == rhs.version && lhs.mask == rhs.mask && lhs.modules == rhs.modules
    }
}
