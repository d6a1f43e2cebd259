import ElectronStore from 'electron-store';
import type { KeyValueStore, SettingsBackend } from '../../app/settings/settings-file';

/** The settings on electron-store in the desktop app (conf underneath; it names the file `name`). */
export const electronStoreBackend: SettingsBackend = ({ configName, ...options }) =>
  new ElectronStore<Record<string, unknown>>({ ...options, name: configName } as ConstructorParameters<typeof ElectronStore>[0]) as unknown as KeyValueStore;
