import Foundation

/// Gzip members (RFC 1952) for the fetcher's tests, written with deflate's fixed Huffman codes
/// (RFC 1951, 3.2.6): every byte as a literal, or one byte followed by back-references of 258
/// bytes at distance 1, which is how a compression bomb packs megabytes into kilobytes.
/// Foundation has no compressor on Linux; any gzip decoder reads both forms.
enum GzipBody {
    /// `data` as a gzip member of literals only (slightly larger than `data`).
    static func literals(_ data: Data) -> Data {
        var bits = BitWriter()
        bits.blockHeader()
        for byte in data { bits.literal(byte) }
        return member(bits, crc: crc32(data), size: data.count)
    }

    /// `count` copies of `byte` (at least 259): the byte, then as many 258-byte copies of it as
    /// fit, then literals for the rest. About 13 bits for every 258 bytes decoded.
    static func bomb(of byte: UInt8, count: Int) -> Data {
        var bits = BitWriter()
        bits.blockHeader()
        bits.literal(byte)
        let copies = (count - 1) / 258
        for _ in 0..<copies {
            bits.huffman(0xC0 + (285 - 280), length: 8)  // length code 285: 258 bytes, no extra bits
            bits.huffman(0, length: 5)  // distance code 0: distance 1
        }
        for _ in 0..<((count - 1) % 258) { bits.literal(byte) }
        var crc = CRC32()
        for _ in 0..<count { crc.add(byte) }
        return member(bits, crc: crc.value, size: count)
    }

    private static func member(_ bits: BitWriter, crc: UInt32, size: Int) -> Data {
        var bits = bits
        bits.huffman(0, length: 7)  // end of block (256)
        var out = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        out.append(contentsOf: bits.finished())
        for value in [crc, UInt32(truncatingIfNeeded: size)] {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
        }
        return out
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc = CRC32()
        for byte in data { crc.add(byte) }
        return crc.value
    }
}

/// Deflate's bit order: fields least significant bit first, Huffman codes most significant first.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var used: UInt32 = 0

    /// The last block (BFINAL 1), fixed Huffman codes (BTYPE 01).
    mutating func blockHeader() {
        bit(1)
        bit(1)
        bit(0)
    }

    /// A literal byte's fixed code: 0–143 in 8 bits from 0x30, 144–255 in 9 bits from 0x190.
    mutating func literal(_ byte: UInt8) {
        if byte < 144 { huffman(0x30 + UInt32(byte), length: 8) } else { huffman(0x190 + UInt32(byte) - 144, length: 9) }
    }

    mutating func huffman(_ code: UInt32, length: UInt32) {
        for index in stride(from: Int(length) - 1, through: 0, by: -1) { bit((code >> UInt32(index)) & 1) }
    }

    private mutating func bit(_ value: UInt32) {
        current |= value << used
        used += 1
        if used == 8 {
            bytes.append(UInt8(current))
            current = 0
            used = 0
        }
    }

    func finished() -> [UInt8] { used > 0 ? bytes + [UInt8(current)] : bytes }
}

/// The CRC-32 gzip's trailer carries (reflected, polynomial 0xEDB88320).
private struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { entry in
        var value = UInt32(entry)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
    private var state: UInt32 = 0xFFFF_FFFF

    mutating func add(_ byte: UInt8) {
        state = CRC32.table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8)
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }
}
