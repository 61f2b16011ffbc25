package jsonl

// CombineCRC is the CRC (hash/crc32's, with the reversed polynomial poly) of
// the bytes whose CRC is crc1 followed by n bytes whose CRC is crc2: crc1
// is carried through n zero bytes (a multiplication by x^(8n) modulo the
// polynomial, by squaring) and added to crc2. This is zlib's
// crc32_combine. An index proves with it that a log still starts with a
// prefix it no longer remembers (see ProvesPrefix), and the hook joins
// the checksums of a log's parts.
func CombineCRC(crc1, crc2 uint32, n int64, poly uint32) uint32 {
	if n <= 0 {
		return crc1
	}
	var even, odd [32]uint32 // operators for 2^k zero bits
	odd[0] = poly            // one zero bit
	row := uint32(1)
	for i := 1; i < 32; i++ {
		odd[i] = row
		row <<= 1
	}
	square(&even, &odd) // two zero bits
	square(&odd, &even) // four
	for {
		square(&even, &odd) // one zero byte, then 4, 16, ...
		if n&1 != 0 {
			crc1 = times(&even, crc1)
		}
		n >>= 1
		if n == 0 {
			break
		}
		square(&odd, &even) // two zero bytes, then 8, 32, ...
		if n&1 != 0 {
			crc1 = times(&odd, crc1)
		}
		n >>= 1
		if n == 0 {
			break
		}
	}
	return crc1 ^ crc2
}

// times is the product of the GF(2) matrix mat and the vector vec.
func times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

// square sets sq to mat times mat.
func square(sq, mat *[32]uint32) {
	for i := range mat {
		sq[i] = times(mat, mat[i])
	}
}
