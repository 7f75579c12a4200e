/// Reed–Solomon error correction codewords over GF(2⁸) with the QR Code's field polynomial
/// x⁸ + x⁴ + x³ + x² + 1 (0x11D) and generator ∏(x − αⁱ), i = 0 … n − 1 (ISO/IEC 18004 §7.5.2).
enum ReedSolomon {
    /// αⁱ for i = 0 … 255, and the logarithms.
    private static let (exp, log): ([UInt8], [Int]) = {
        var exp = [UInt8](repeating: 0, count: 256)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exp[power] = UInt8(value)
            log[value] = power
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        exp[255] = exp[0]
        return (exp, log)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0, b != 0 else { return 0 }
        return exp[(log[Int(a)] + log[Int(b)]) % 255]
    }

    /// The generator polynomial of degree `degree`, its leading 1 left out, highest power first.
    static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                coefficients[index] = multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = multiply(root, 2)
        }
        return coefficients
    }

    /// The `degree` remainder codewords of `data` divided by the generator.
    static func remainder(_ data: [UInt8], degree: Int) -> [UInt8] {
        let generator = generator(degree: degree)
        var result = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for index in 0..<degree { result[index] ^= multiply(generator[index], factor) }
        }
        return result
    }
}
