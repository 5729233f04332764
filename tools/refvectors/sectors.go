package main

// The sector mapping of spec/disk.md ("Sectors"):
//   - a data unit is 16..2048 bytes; a 4096-byte sector is the two
//     2048-byte data units numbered 2s and 2s+1;
//   - XEX: block j (0-based) of data unit s uses the tweak
//     (N = s as a 16-byte big-endian integer, i = j + 1);
//   - EME and EtE: T = s as a 16-byte little-endian integer.

import (
	"crypto/aes"
	"encoding/binary"
	"fmt"
)

const maxDataUnit = 2048

// dataUnits splits a sector of the given size, numbered s, into its data
// units (number, byte range).
func dataUnits(sectorSize int, s uint64) (units []uint64, unitSize int, err error) {
	switch {
	case sectorSize == 4096:
		return []uint64{2 * s, 2*s + 1}, 2048, nil
	case sectorSize >= 16 && sectorSize <= maxDataUnit && sectorSize%16 == 0:
		return []uint64{s}, sectorSize, nil
	}
	return nil, 0, fmt.Errorf("sector size %d not supported", sectorSize)
}

func tweakBE(s uint64) block { var t block; binary.BigEndian.PutUint64(t[8:], s); return t }
func tweakLE(s uint64) block { var t block; binary.LittleEndian.PutUint64(t[:8], s); return t }

// sectorCrypt en/deciphers consecutive sectors first, first+1, ... of data.
func sectorCrypt(cipherName string, key []byte, sectorSize int, first uint64, data []byte, forward bool) ([]byte, error) {
	if len(data)%sectorSize != 0 {
		return nil, fmt.Errorf("data is not a whole number of sectors")
	}
	var out []byte
	for k := 0; k < len(data)/sectorSize; k++ {
		sector := data[k*sectorSize : (k+1)*sectorSize]
		units, unitSize, err := dataUnits(sectorSize, first+uint64(k))
		if err != nil {
			return nil, err
		}
		for u, s := range units {
			y, err := unitCrypt(cipherName, key, s, sector[u*unitSize:(u+1)*unitSize], forward)
			if err != nil {
				return nil, err
			}
			out = append(out, y...)
		}
	}
	return out, nil
}

// unitCrypt en/deciphers data unit number s.
func unitCrypt(cipherName string, key []byte, s uint64, x []byte, forward bool) ([]byte, error) {
	switch cipherName {
	case "xex":
		E, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		return xexRun(E, tweakBE(s), 1, x, forward), nil
	case "eme":
		E, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		return emeCrypt(aesPermutation(E), tweakLE(s), x, forward)
	case "ete":
		if forward {
			return eteEncrypt(key, tweakLE(s), x)
		}
		return eteDecrypt(key, tweakLE(s), x)
	}
	return nil, fmt.Errorf("unknown cipher %q", cipherName)
}
