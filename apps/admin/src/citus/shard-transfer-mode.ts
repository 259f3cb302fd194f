/** How Citus copies a shard group it moves: the modes of citus_move_shard_placement. */
export const SHARD_TRANSFER_MODES = ['auto', 'force_logical', 'block_writes'] as const;
export type ShardTransferMode = (typeof SHARD_TRANSFER_MODES)[number];
