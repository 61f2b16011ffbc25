package jsonl

// CombineCRC is the CRC (hash/crc32's, with the reversed polynomial poly) of
// the bytes whose CRC is crc1 followed by n bytes whose CRC is crc2: crc1
// is multiplied by x^(8n) modulo the polynomial (x^(8·2^k) by squaring, for
// each bit k of n) and added to crc2, as zlib's crc32_combine does. An
// index proves with it that a log still starts with a prefix it no longer
// remembers (see ProvesPrefix), and the hook joins the checksums of a
// log's parts.
func CombineCRC(crc1, crc2 uint32, n int64, poly uint32) uint32 {
	if n <= 0 {
		return crc1
	}
	xn := uint32(1) << 31     // x^0: bit 31 is x^0 in hash/crc32's reversed order
	square := uint32(1) << 23 // x^8, one zero byte
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			xn = mulModP(xn, square, poly)
		}
		square = mulModP(square, square, poly)
	}
	return mulModP(xn, crc1, poly) ^ crc2
}

// mulModP is a times b modulo the reversed polynomial poly.
func mulModP(a, b, poly uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 { // b times x
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return p
}
