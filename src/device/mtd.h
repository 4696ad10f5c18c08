/*
 * Emulated flash: an MTD device made by block2mtd over a block device
 * (the guest's virtio disk), as the reference's flash runs used. The
 * block2mtd module must be loaded (the guest's init loads it); a device
 * made here stays until the module is unloaded, which the guest's
 * poweroff does.
 */
#ifndef FSB_DEVICE_MTD_H
#define FSB_DEVICE_MTD_H
#include <stddef.h>
#include <stdint.h>

/*
 * Parse a --mtd value "DEV,ERASESIZE" (ERASESIZE with k/m suffixes, a
 * power of two from 4 KiB to 16 MiB). Pure. 0 or -EINVAL.
 */
int fsb_mtd_parse(const char *spec, char *dev, size_t dev_len, uint64_t *erase_bytes);

/*
 * The index N of the MTD device block2mtd made over dev, from the text of
 * /proc/mtd ('mtd0: 04000000 00020000 "block2mtd: /dev/vda"'). Pure.
 * Returns N >= 0, or -ENOENT.
 */
int fsb_mtd_find(const char *proc_mtd, const char *dev);

/*
 * Make an MTD device over dev with erase blocks of erase_bytes (writing
 * block2mtd's parameter), wait for /dev/mtdN and /dev/mtdblockN, and write
 * their paths. Refuses a dev that already backs an MTD device. Returns 0 or
 * -errno after describing it (block2mtd not loaded: -ENODEV).
 */
int fsb_mtd_attach(const char *dev, uint64_t erase_bytes, char *chr, size_t chr_len, char *blk,
		   size_t blk_len);

/*
 * Detach UBI device ubi_num from its MTD device (UBI_IOCDET on
 * /dev/ubi_ctrl). Returns 0 or -errno (not described: the caller names
 * the flash).
 */
int fsb_ubi_detach(int ubi_num);

#endif
