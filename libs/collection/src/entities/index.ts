import { CollectionSalt } from './collection-salt.entity';

export { CollectionSalt };
export const collectionEntities = [CollectionSalt];
